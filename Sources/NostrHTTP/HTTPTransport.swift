/// One HTTP request, with the most response bytes the caller will keep.
public struct HTTPTransportRequest: Sendable {
  /// The absolute `http`/`https` URL.
  public var url: String
  /// `GET` or `POST`.
  public var method: String
  /// Request header fields; names as written.
  public var headers: [String: String]
  /// The request body, if any.
  public var body: [UInt8]?
  /// The response cap: a larger body (announced or actual) fails with `too_large`, unless
  /// ``keepsPrefixPastCap`` is set.
  public var maxResponseBytes: Int
  /// When true, a body over the cap (announced by `Content-Length` or not) is not an error: the
  /// first `maxResponseBytes` bytes arrive as the response's body, marked
  /// ``HTTPTransportResponse/isTruncated``, and the rest is never read; a body the connection cuts
  /// short arrives as far as it came, marked the same way. For a caller that can use a prefix (a
  /// JSON array read element by element); false by default.
  public var keepsPrefixPastCap: Bool

  /// Creates a request.
  public init(
    url: String, method: String, headers: [String: String] = [:], body: [UInt8]? = nil, maxResponseBytes: Int,
    keepsPrefixPastCap: Bool = false
  ) {
    self.url = url
    self.method = method
    self.headers = headers
    self.body = body
    self.maxResponseBytes = maxResponseBytes
    self.keepsPrefixPastCap = keepsPrefixPastCap
  }
}

/// An HTTP response whose body arrived whole within the request's cap — or, for a request that
/// keeps the prefix past its cap, the first cap bytes of it (``isTruncated``).
public struct HTTPTransportResponse: Sendable, Hashable {
  /// The status code (redirects are never followed, so a 3xx arrives here as is).
  public var status: Int
  /// Header fields with lower-cased names.
  public var headers: [String: String]
  /// The body bytes, decoded from any `Content-Encoding` the HTTP stack applied.
  public var body: [UInt8]
  /// True when the body was cut — at the request's cap, or by the connection — and `body` is what
  /// arrived before the cut (only for a request with ``HTTPTransportRequest/keepsPrefixPastCap``).
  public var isTruncated: Bool

  /// Creates a response.
  public init(status: Int, headers: [String: String] = [:], body: [UInt8], isTruncated: Bool = false) {
    self.status = status
    self.headers = headers
    self.body = body
    self.isTruncated = isTruncated
  }
}

/// The package's one HTTP seam: send a request, get a capped response by a deadline.
///
/// NIP-11 discovery, the resolver's `/query` and media requests, and a relay's gateway requests
/// all go through it. Conform to it to bring your own `URLSession` or HTTP stack;
/// ``URLSessionHTTPTransport`` is the default. An implementation must not follow redirects, must
/// keep no byte past the cap (for a request that keeps the prefix past its cap: deliver the first
/// cap bytes marked truncated, with or without `Content-Length`), must honour both the deadline and task cancellation, and should
/// ask for the identity encoding.
public protocol HTTPTransport: Sendable {
  /// Sends `request` and returns the whole response, or throws by `deadline`.
  func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant)
    async throws(HTTPTransportError)
    -> HTTPTransportResponse
}
