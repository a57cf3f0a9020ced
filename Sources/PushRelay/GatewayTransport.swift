/// One HTTP request the gateway client sends.
public struct GatewayHTTPRequest: Sendable, Hashable {
  /// The absolute URL.
  public var url: String
  /// The method (`POST`).
  public var method: String
  /// Header fields, names as written.
  public var headers: [String: String]
  /// The body.
  public var body: [UInt8]
  /// The most body bytes the client reads; the transport keeps at most this many.
  public var maxResponseBytes: Int

  /// Creates a request.
  public init(url: String, method: String, headers: [String: String], body: [UInt8], maxResponseBytes: Int) {
    self.url = url
    self.method = method
    self.headers = headers
    self.body = body
    self.maxResponseBytes = maxResponseBytes
  }
}

/// What the gateway answered: the status and at most `maxResponseBytes` of the body.
public struct GatewayHTTPResponse: Sendable, Hashable {
  /// The status (redirects are never followed, so a 3xx arrives as is).
  public var status: Int
  /// The body bytes kept.
  public var body: [UInt8]
  /// Whether the body was longer than the cap (then it is unparseable for the client).
  public var bodyExceededCap: Bool

  /// Creates a response.
  public init(status: Int, body: [UInt8], bodyExceededCap: Bool = false) {
    self.status = status
    self.body = body
    self.bodyExceededCap = bodyExceededCap
  }
}

/// The one thing `GatewayClient` needs from an HTTP stack: send a request by a deadline.
///
/// A minimal protocol of `PushRelay`'s own, shaped like `NotificationResolver.HTTPTransport`, so
/// a relay brings its own client and the package-wide transport can replace it. An implementation
/// must not follow redirects, must keep no more than the cap (setting `bodyExceededCap`), must
/// honour the deadline and task cancellation, and throws `PushRelayError` code `transport` for a
/// timeout, a refused, reset or cut-short connection.
public protocol GatewayTransport: Sendable {
  /// Sends `request` and returns the response, or throws by `deadline`.
  func send(_ request: GatewayHTTPRequest, deadline: ContinuousClock.Instant) async throws(PushRelayError)
    -> GatewayHTTPResponse
}
