import NostrPushCore

/// Why a `PushRelay` operation failed: storage, configuration or a gateway exchange.
///
/// Equality and hashing use `code` and `field` only, so a test matches the reason, never the
/// human-readable message. Storage failures are what a relay answers with
/// `error: internal server error`; a lease rejection is not an error but a `LeaseAcceptance`.
public struct PushRelayError: NostrPushError {
  /// A stable, extensible reason; raw values are snake_case.
  public struct Code: RawRepresentable, Hashable, Sendable {
    /// The snake_case name.
    public let rawValue: String

    /// Creates a code from its snake_case name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// SQLite refused an operation (open, migrate, read or write); the message holds its text.
    public static let storage = Code(rawValue: "storage")
    /// The state file was written by a newer version (its `user_version` is above every migration).
    public static let unsupportedSchema = Code(rawValue: "unsupported_schema")
    /// A setting is outside its documented range (a gateway URL, a timeout).
    public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
    /// The transport could not deliver the request by its deadline: timeout, refused, reset or cut short.
    public static let transport = Code(rawValue: "transport")
    /// The push key needed to sign a gateway request is not held.
    public static let unknownPushKey = Code(rawValue: "unknown_push_key")
    /// A stored value does not have the shape it was written with.
    public static let corruptRow = Code(rawValue: "corrupt_row")
  }

  /// The stable reason.
  public let code: Code
  /// A human-readable explanation (never a key or a grant).
  public let message: String
  /// The setting or column at fault, where one applies.
  public let field: String?

  /// Creates an error.
  public init(_ code: Code, _ message: String, field: String? = nil) {
    self.code = code
    self.message = message
    self.field = field
  }

  public var description: String {
    if let field { return "\(field): \(message) (\(code.rawValue))" }
    return "\(message) (\(code.rawValue))"
  }

}
