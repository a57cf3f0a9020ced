import NostrPushCore

/// Why an HTTP exchange produced no usable response.
///
/// Equality and hashing use `code` (there is no field), so callers match reasons, not wording.
public struct HTTPTransportError: NostrPushError {
  /// A stable, snake_case reason; new reasons may be added, so switch with a `default`.
  public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The snake_case code.
    public let rawValue: String
    /// Creates a code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Connection refused, host not found, TLS failure.
    public static let unreachable = Code(rawValue: "unreachable")
    /// The deadline passed before the body arrived whole.
    public static let timeout = Code(rawValue: "timeout")
    /// The body is (or announced itself as) larger than the request's cap.
    public static let tooLarge = Code(rawValue: "too_large")
    /// The connection closed before the announced body arrived whole.
    public static let truncated = Code(rawValue: "truncated")
    /// The caller's task was cancelled.
    public static let cancelled = Code(rawValue: "cancelled")
    /// The URL could not be used.
    public static let invalidURL = Code(rawValue: "invalid_url")

    public var description: String { rawValue }
  }

  /// The stable reason.
  public let code: Code
  /// A human-readable detail (never message content or credentials).
  public let message: String
  /// Always nil: the exchange as a whole failed.
  public var field: String? { nil }
  /// The response's status when its head had arrived (a `too_large` or `truncated` body), so a
  /// caller can still react to the status; nil otherwise.
  public let status: Int?

  /// Creates an error.
  public init(_ code: Code, _ message: String = "", status: Int? = nil) {
    self.code = code
    self.message = message
    self.status = status
  }

  public var description: String { message.isEmpty ? code.rawValue : "\(code.rawValue): \(message)" }

}
