@_exported import NostrPushCore

/// Why an HTTP exchange produced no usable response.
///
/// Equality and hashing use `code` (there is no field), so callers match reasons, not wording.
public typealias HTTPTransportError = DomainError<HTTPTransportErrorDomain>

/// The error domain of `HTTPTransportError`: its codes are the static members below.
public enum HTTPTransportErrorDomain: ErrorDomain {
  /// The HTTP status of the answer that was refused (a `tooLarge` body), when there was one.
  public typealias Detail = Int

}

extension ErrorCode where Domain == HTTPTransportErrorDomain {
  /// Connection refused, host not found, TLS failure.
  public static var unreachable: Self { Self("unreachable") }
  /// The deadline passed before the body arrived whole.
  public static var timeout: Self { Self("timeout") }
  /// The body is (or announced itself as) larger than the request's cap.
  public static var tooLarge: Self { Self("too_large") }
  /// The connection closed before the announced body arrived whole.
  public static var truncated: Self { Self("truncated") }
  /// The caller's task was cancelled.
  public static var cancelled: Self { Self("cancelled") }
  /// The URL could not be used.
  public static var invalidURL: Self { Self("invalid_url") }
}

extension DomainError where Domain == HTTPTransportErrorDomain {
  /// The HTTP status of the refused answer, when there was one.
  public var status: Int? { detail }
}
