import NostrCurlHTTP
import NostrHTTP
import NostrPushCore

/// ``APNsTransport`` over ``CurlHTTPClient``: HTTP/2 only (an HTTP/1.1 answer is refused), every
/// request of one credential multiplexed over one connection per host.
///
/// Token auth puts the JWT in each request's `authorization` field; certificate auth is the
/// client's (``CurlClientCertificate``), so use one transport per credential.
public struct CurlAPNsTransport: APNsTransport {
  /// The largest APNs answer kept: its bodies are a `{"reason":…}` of a few dozen bytes.
  public static let maxResponseBytes = 8 * 1024

  private let client: CurlHTTPClient
  private let origin: String

  /// A transport sending to `origin` (an ``APNsEnvironment``'s, or a loopback stand-in's in
  /// tests) through `client`.
  public init(client: CurlHTTPClient, origin: String) {
    self.client = client
    self.origin = origin
  }

  /// Sends `request` as `POST <origin>/3/device/<token>` over HTTP/2.
  public func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws(HTTPTransportError)
    -> APNsResponse
  {
    var headers: [String: String] = [:]
    for field in request.headers { headers[field.name] = field.value }
    let response = try await client.send(
      HTTPTransportRequest(
        url: origin + request.path, method: "POST", headers: headers, body: request.body,
        maxResponseBytes: Self.maxResponseBytes),
      deadline: deadline, requireHTTP2: true)
    return APNsResponse(status: response.status, headers: response.headers, body: response.body)
  }
}
