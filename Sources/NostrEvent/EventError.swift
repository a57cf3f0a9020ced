import NostrPushCore

/// Why NostrEvent refused an input — an event, a filter, a key, a relay URL — and which field
/// or member was at fault: the module's one error.
///
/// Equality compares `code` and `field` only, so tests and callers match failures without
/// depending on the wording of `message`.
public struct EventError: NostrPushError {
  /// A stable, machine-readable reason, written in snake case on the command line. New codes may
  /// be added: switch over it with a `default`.
  public enum Code: String, Sendable, Hashable {
    /// Not JSON, not an object, a duplicate member, a lone surrogate, too deep or too large.
    case malformedJSON = "malformed_json"
    /// An event field is missing, of the wrong type, out of range or not lowercase hex of the
    /// right length (also a bad secret key or relay URL).
    case invalidField = "invalid_field"
    /// A filter member has the wrong JSON type.
    case wrongType = "wrong_type"
    /// A filter value is out of range, not lowercase hex of the right length, or a tag key is not
    /// one letter.
    case invalidValue = "invalid_value"
    /// A filter list holds more values than `Filter.maxValues`.
    case tooMany = "too_many"
  }

  /// The stable reason.
  public var code: Code
  /// The field or member at fault (`"created_at"`, `"ids[2]"`, `"#p"` …), or nil for a
  /// document-level failure.
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

  static func invalid(_ field: String, _ message: String) -> EventError {
    EventError(code: .invalidField, field: field, message: "\(field): \(message)")
  }
}
