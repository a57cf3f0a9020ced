import NostrPushCore

/// Why an event could not be parsed, and which field was at fault.
///
/// Equality compares `code` and `field` only, so tests and callers match failures without
/// depending on the wording of `message`.
public struct EventError: NostrPushError {
  /// A stable, machine-readable reason, written in snake case on the command line.
  public enum Code: String, Sendable, Hashable {
    /// Not JSON, not an object, a duplicate member, a lone surrogate, too deep or too large.
    case malformedJSON = "malformed_json"
    /// A field is missing, of the wrong type, out of range or not lowercase hex of the right length.
    case invalidField = "invalid_field"
  }

  /// The stable reason.
  public var code: Code
  /// The field at fault (`"created_at"`, `"tags"` …), or nil for a document-level failure.
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
