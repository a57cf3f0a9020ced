@_exported import NostrPushCore

/// Why the HTTP server could not be configured, started or used.
///
/// Equality and hashing use `code` and `field`, so callers match reasons, not wording.
public typealias HTTPServerError = DomainError<HTTPServerErrorDomain>

/// The error domain of `HTTPServerError`: its codes are the static members below.
public enum HTTPServerErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == HTTPServerErrorDomain {
  /// A configuration value is out of its range (the field names it).
  public static var invalidConfiguration: Self { Self("invalid_configuration") }
  /// libmicrohttpd could not start: the address is taken, or not this host's.
  public static var startFailed: Self { Self("start_failed") }
  /// A route is declared twice, or its path is not absolute.
  public static var invalidRoute: Self { Self("invalid_route") }
  /// The WebSocket connection is closing or closed.
  public static var webSocketClosed: Self { Self("web_socket_closed") }
  /// A WebSocket message is over the codec's message limit.
  public static var messageTooLarge: Self { Self("message_too_large") }
}
