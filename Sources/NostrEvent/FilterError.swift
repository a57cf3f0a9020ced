import NostrPushCore

/// Why a NIP-01 filter was refused, and which member was at fault.
///
/// Equality compares `code` and `field` only.
public struct FilterError: NostrPushError {
  /// A stable, machine-readable reason.
  public enum Code: String, Sendable, Hashable {
    /// The filter is not a JSON object (or the text is not JSON).
    case malformedJSON = "malformed_json"
    /// A member has the wrong JSON type.
    case wrongType = "wrong_type"
    /// A value is out of range, not lowercase hex of the right length, or a tag key is not one letter.
    case invalidValue = "invalid_value"
    /// A list holds more values than `Filter.maxValues`.
    case tooMany = "too_many"
  }

  /// The stable reason.
  public var code: Code
  /// The member at fault (`"ids[2]"`, `"#p"`, `"since"` …), nil for the whole filter.
  public var field: String?
  /// A human-readable explanation.
  public var message: String

  /// Creates an error.
  public init(code: Code, field: String? = nil, message: String) {
    self.code = code
    self.field = field
    self.message = message
  }

  public var description: String { message }

}
