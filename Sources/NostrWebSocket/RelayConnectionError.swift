import NostrPushCore

/// Why a WebSocket connection to a relay, or one operation on it, failed.
///
/// Equality and hashing use `code` only, so a caller (or a test) matches the failure without
/// depending on the human-readable `message`, which names the phase, the close code or the
/// relay's own text.
public struct RelayConnectionError: NostrPushError {
  /// A stable, machine-readable reason (snake_case raw values, extensible).
  public struct Code: RawRepresentable, Hashable, Sendable {
    /// The snake_case name.
    public let rawValue: String
    /// Creates a code from its snake_case name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The relay URL is not a `ws`/`wss` URL within the bounds (refused before connecting).
    public static let invalidURL = Code(rawValue: "invalid_url")
    /// The URL's scheme is not supported here (`wss` on Linux, or not a WebSocket scheme).
    public static let unsupportedScheme = Code(rawValue: "unsupported_scheme")
    /// The filters of a query are not 1–100 (refused before sending).
    public static let invalidFilters = Code(rawValue: "invalid_filters")
    /// The event to publish does not verify (refused before sending).
    public static let invalidEvent = Code(rawValue: "invalid_event")
    /// Name lookup failed, or the connection was refused or unroutable.
    public static let unreachable = Code(rawValue: "unreachable")
    /// A deadline passed; the message names the phase.
    public static let timeout = Code(rawValue: "timeout")
    /// The awaiting task was cancelled.
    public static let cancelled = Code(rawValue: "cancelled")
    /// The server's answer to the opening handshake is not a valid RFC 6455 upgrade.
    public static let handshakeFailed = Code(rawValue: "handshake_failed")
    /// The server broke a framing rule of RFC 6455.
    public static let protocolViolation = Code(rawValue: "protocol_violation")
    /// A frame or message over the limits, or an outgoing message over 4 MiB.
    public static let messageTooLarge = Code(rawValue: "message_too_large")
    /// The server closed the connection or the socket ended; the message gives code and reason.
    public static let connectionClosed = Code(rawValue: "connection_closed")
    /// The relay answered `CLOSED` to a subscription; the message is its text.
    public static let subscriptionClosed = Code(rawValue: "subscription_closed")
    /// The relay still asked for authentication after one retry, or no key was given.
    public static let authRequired = Code(rawValue: "auth_required")
    /// The relay refused our NIP-42 `AUTH` event; the message is its text.
    public static let authFailed = Code(rawValue: "auth_failed")
    /// A query's answer went past its `QueryLimits`.
    public static let resultTooLarge = Code(rawValue: "result_too_large")
  }

  /// The stable reason.
  public let code: Code
  /// A human-readable explanation (the phase, the close code and reason, or the relay's text).
  public let message: String
  /// Always nil: the connection or the operation as a whole failed.
  public var field: String? { nil }

  /// Creates an error.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The code and message, as one line.
  public var description: String { "\(code.rawValue): \(message)" }

}
