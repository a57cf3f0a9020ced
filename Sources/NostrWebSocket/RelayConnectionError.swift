@_exported import NostrPushCore

/// Why a WebSocket connection to a relay, or one operation on it, failed.
///
/// Equality and hashing use `code` only, so a caller (or a test) matches the failure without
/// depending on the human-readable `message`, which names the phase, the close code or the
/// relay's own text.
public typealias RelayConnectionError = DomainError<RelayConnectionErrorDomain>

/// The error domain of `RelayConnectionError`: its codes are the static members below.
public enum RelayConnectionErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == RelayConnectionErrorDomain {
  /// The relay URL is not a `ws`/`wss` URL within the bounds (refused before connecting).
  public static var invalidURL: Self { Self("invalid_url") }
  /// The URL's scheme is not supported here (`wss` on Linux, or not a WebSocket scheme).
  public static var unsupportedScheme: Self { Self("unsupported_scheme") }
  /// The filters of a query are not 1–100 (refused before sending).
  public static var invalidFilters: Self { Self("invalid_filters") }
  /// The event to publish does not verify (refused before sending).
  public static var invalidEvent: Self { Self("invalid_event") }
  /// Name lookup failed, or the connection was refused or unroutable.
  public static var unreachable: Self { Self("unreachable") }
  /// A deadline passed; the message names the phase.
  public static var timeout: Self { Self("timeout") }
  /// The awaiting task was cancelled.
  public static var cancelled: Self { Self("cancelled") }
  /// The server's answer to the opening handshake is not a valid RFC 6455 upgrade.
  public static var handshakeFailed: Self { Self("handshake_failed") }
  /// The server broke a framing rule of RFC 6455.
  public static var protocolViolation: Self { Self("protocol_violation") }
  /// A frame or message over the limits, or an outgoing message over 4 MiB.
  public static var messageTooLarge: Self { Self("message_too_large") }
  /// The server closed the connection or the socket ended; the message gives code and reason.
  public static var connectionClosed: Self { Self("connection_closed") }
  /// The relay answered `CLOSED` to a subscription; the message is its text.
  public static var subscriptionClosed: Self { Self("subscription_closed") }
  /// The relay still asked for authentication after one retry, or no key was given.
  public static var authRequired: Self { Self("auth_required") }
  /// The relay refused our NIP-42 `AUTH` event; the message is its text.
  public static var authFailed: Self { Self("auth_failed") }
  /// A query's answer went past its `QueryLimits`.
  public static var resultTooLarge: Self { Self("result_too_large") }
}
