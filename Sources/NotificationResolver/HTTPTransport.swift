/// One HTTP request the resolver makes, with the most response bytes it will keep.
public struct HTTPRequest: Sendable {
  /// The absolute `http`/`https` URL.
  public var url: String
  /// `GET` or `POST`.
  public var method: String
  /// Request header fields; names as written.
  public var headers: [String: String]
  /// The request body, if any.
  public var body: [UInt8]?
  /// The response cap: a larger body (announced or actual) fails with `tooLarge`.
  public var maxResponseBytes: Int

  /// Creates a request.
  public init(
    url: String, method: String, headers: [String: String] = [:], body: [UInt8]? = nil, maxResponseBytes: Int
  ) {
    self.url = url
    self.method = method
    self.headers = headers
    self.body = body
    self.maxResponseBytes = maxResponseBytes
  }
}

/// A complete HTTP response whose body arrived whole within the request's cap.
public struct HTTPResponse: Sendable {
  /// The status code (redirects are never followed, so a 3xx arrives here as is).
  public var status: Int
  /// Header fields with lower-cased names.
  public var headers: [String: String]
  /// The body bytes.
  public var body: [UInt8]

  /// Creates a response.
  public init(status: Int, headers: [String: String], body: [UInt8]) {
    self.status = status
    self.headers = headers
    self.body = body
  }
}

/// Why an HTTP exchange produced no usable response.
public struct TransportError: Error, Sendable, Hashable {
  /// A stable reason.
  public enum Code: String, Sendable, Hashable {
    /// Connection refused, host not found, TLS failure.
    case unreachable
    /// The deadline passed before the body arrived whole.
    case timeout
    /// The body is (or announced itself as) larger than the request's cap.
    case tooLarge = "too_large"
    /// The connection closed before the announced body arrived whole.
    case truncated
    /// The caller's task was cancelled.
    case cancelled
    /// The URL could not be used.
    case invalidURL = "invalid_url"
  }

  /// The stable reason.
  public var code: Code
  /// A human-readable detail (never message content or credentials).
  public var message: String

  /// Creates an error.
  public init(_ code: Code, _ message: String = "") {
    self.code = code
    self.message = message
  }

  public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.code == rhs.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// The one thing the resolver needs from an HTTP stack: send a request, get a capped response by
/// a deadline.
///
/// Conform to it to bring your own `URLSession` configuration; ``URLSessionTransport`` is the
/// default. An implementation must not follow redirects, must keep no byte past the cap, and must
/// honour both the deadline and task cancellation.
public protocol HTTPTransport: Sendable {
  /// Sends `request` and returns the whole response, or throws by `deadline`.
  func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant) async throws(TransportError)
    -> HTTPResponse
}
