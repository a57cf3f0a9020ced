import NostrEvent
import NostrHTTP
import NostrJSON

#if os(Linux)
import NostrCurlHTTP

/// The one libcurl client of the process's gateway clients (made on first use).
private let sharedDefaultTransport: any HTTPTransport =
  (try? CurlHTTPClient(maxConnectionsPerHost: GatewayClient.defaultMaxConnectionsPerGateway))
  ?? URLSessionHTTPTransport.shared
#else
private let sharedDefaultTransport: any HTTPTransport = URLSessionHTTPTransport.shared
#endif

/// How the gateway answered one delivery, classified by the worker's reaction table.
public enum GatewayAnswer: Sendable, Hashable {
  /// 2xx with a JSON object whose `status` is `accepted`.
  case accepted
  /// Any other 2xx.
  case unexpectedSuccess(status: Int)
  /// 410 `{"status":"invalid_endpoint",…}`, with the gateway's generation if it gave one.
  case invalidEndpoint(generation: Int64?)
  /// 503, with a positive integer `retry_after_seconds` (at most 3600) if the body had one.
  case unavailable(retryAfterSeconds: Int64?)
  /// 429 (a quota: `{"status":"rate_limited","retry_after_seconds":n}`), with a positive integer
  /// `retry_after_seconds` (at most 3600) if the body had one.
  case rateLimited(retryAfterSeconds: Int64?)
  /// No answer: timeout, refused, reset or cut short.
  case unreachable(String)
  /// 404 `{"error":"unsupported_transport"}`.
  case unsupportedTransport
  /// Any other 404.
  case notFound
  /// Any other status (other 410, 400, 401, 3xx, …).
  case refused(status: Int)
}

/// Sends one signed wake request to a push gateway: `POST <base>/v1/deliveries/<transport>` with
/// the exact compact body and a fresh NIP-98 event per attempt.
///
/// The base is `https://host[:port]` (`http` only on loopback), nothing after it. The body carries
/// the grant, the wake's `request_id` (the same on every attempt) and its expiry, never the push
/// class. A response body is read to 16 KiB; more is unparseable.
public struct GatewayClient: Sendable {
  /// The default per-attempt timeout (2000 ms).
  public static let defaultTimeout: Duration = .milliseconds(2000)
  /// The allowed timeouts (100…10 000 ms).
  package static let timeoutRange: ClosedRange<Duration> = .milliseconds(100) ... .milliseconds(10_000)
  /// The most response bytes read (16 KiB).
  package static let maxResponseBytes = 16 * 1024

  /// The base URL as given (`https://gateway.example`, `http://127.0.0.1:9000`).
  public let baseURL: String
  /// The per-attempt timeout.
  public let timeout: Duration
  private let transport: any HTTPTransport

  /// The transport a client uses unless given one: on Linux one shared ``CurlHTTPClient``
  /// (libcurl's thread sleeps in `curl_multi_poll` while deliveries wait, where URLSession spun a
  /// core: 2.7 s of CPU in a 4 s wait), `URLSessionHTTPTransport.shared` elsewhere or when
  /// libcurl cannot start.
  public static var defaultTransport: any HTTPTransport { sharedDefaultTransport }

  /// How many connections the default transport keeps to one gateway (128): the delivery
  /// worker keeps up to 128 requests in flight, and over HTTP/1.1 (a loopback gateway, or a
  /// proxy without HTTP/2) each needs a connection of its own; over HTTP/2 they share one.
  public static let defaultMaxConnectionsPerGateway = 128

  /// A client for `baseURL` over `transport`.
  ///
  /// Throws `invalid_configuration` (field `gateway`) for a base with a path, query, user info or
  /// another scheme, `http` off loopback, and (field `gateway_timeout_ms`) a timeout outside
  /// `timeoutRange`.
  public init(
    baseURL: String, transport: any HTTPTransport = GatewayClient.defaultTransport,
    timeout: Duration = defaultTimeout
  )
    throws(PushRelayError)
  {
    guard Self.timeoutRange.contains(timeout) else {
      throw PushRelayError(
        code: .invalidConfiguration, field: "gateway_timeout_ms",
        message: "the gateway timeout must be 100...10000 ms")
    }
    try Self.checkBase(baseURL)
    self.baseURL = baseURL
    self.timeout = timeout
    self.transport = transport
  }

  /// The URL deliveries through `transport` go to.
  package func deliveryURL(transport: String) -> String {
    baseURL + "/v1/deliveries/" + transport
  }

  /// The exact body: `{"v":1,"endpoint_grant":…,"request_id":…,"expires_at":n}`, compact, in this
  /// order, strings escaped as NIP-01 does.
  package static func body(endpointGrant: String, requestID: String, expiresAt: Int64) -> [UInt8] {
    JSONWriter.bytes(
      .object(
        JSONObject([
          JSONMember(key: "v", value: .integer(1)),
          JSONMember(key: "endpoint_grant", value: .string(endpointGrant)),
          JSONMember(key: "request_id", value: .string(requestID)),
          JSONMember(key: "expires_at", value: .integer(expiresAt)),
        ])))
  }

  /// Sends `wake` signed by `key` at Unix time `now` and classifies the answer, with the HTTP
  /// status (nil when nothing came back); never throws (a transport failure is `.unreachable`).
  package func deliver(_ wake: Wake, key: SecretKey, now: Int64) async -> (
    answer: GatewayAnswer, status: Int?
  ) {
    let candidate = wake.candidate
    guard Self.isPathSafe(candidate.transport) else { return (.unsupportedTransport, nil) }
    let url = deliveryURL(transport: candidate.transport)
    let body = Self.body(
      endpointGrant: candidate.endpoint, requestID: wake.requestID, expiresAt: candidate.expiresAt)
    let authorization: String
    do {
      authorization = try NIP98.authorizationHeader(url: url, method: "POST", body: body, key: key, now: now)
    } catch {
      return (.unreachable("cannot sign the NIP-98 event"), nil)
    }
    let request = HTTPTransportRequest(
      url: url, method: "POST",
      headers: ["Content-Type": "application/json", "Authorization": authorization],
      body: body, maxResponseBytes: Self.maxResponseBytes)
    let response: GatewayHTTPResponse
    do {
      let answer = try await transport.send(request, deadline: .now.advanced(by: timeout))
      response = GatewayHTTPResponse(status: answer.status, body: answer.body)
    } catch {
      // A body over the cap still has a status to react to (an oversized 2xx is not `accepted`).
      guard error.code == .tooLarge, let status = error.status else {
        return (.unreachable(error.description), nil)
      }
      response = GatewayHTTPResponse(status: status, body: [], bodyExceededCap: true)
    }
    return (Self.classify(response), response.status)
  }

  /// The reaction-table class of a response.
  package static func classify(_ response: GatewayHTTPResponse) -> GatewayAnswer {
    let object: JSONObject? =
      response.bodyExceededCap || response.body.count > maxResponseBytes
      ? nil : (try? JSONReader(maxBytes: maxResponseBytes).read(response.body))?.objectValue
    switch response.status {
    case 200...299:
      return object?["status"]?.stringValue == "accepted"
        ? .accepted : .unexpectedSuccess(status: response.status)
    case 410:
      guard object?["status"]?.stringValue == "invalid_endpoint" else { return .refused(status: 410) }
      return .invalidEndpoint(generation: object?["generation"]?.integerValue)
    case 503:
      return .unavailable(retryAfterSeconds: retryAfter(in: object))
    case 429:
      return .rateLimited(retryAfterSeconds: retryAfter(in: object))
    case 404:
      return object?["error"]?.stringValue == "unsupported_transport" ? .unsupportedTransport : .notFound
    default:
      return .refused(status: response.status)
    }
  }

  /// A body's positive integer `retry_after_seconds`, capped at 3600; nil for anything else.
  private static func retryAfter(in object: JSONObject?) -> Int64? {
    guard let seconds = object?["retry_after_seconds"]?.integerValue, seconds > 0 else { return nil }
    return min(seconds, WakeSchedule.maxRetryAfterSeconds)
  }

  private static func isPathSafe(_ transport: String) -> Bool {
    !transport.isEmpty
      && transport.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
      }
  }

  /// Checks the base through the package's one URL parser (`RelayOrigin.parse`): `http(s)` with
  /// a valid host and port and nothing after it (a trailing `/` included), and `http` only on
  /// loopback (`RelayOrigin.isLoopback`).
  private static func checkBase(_ base: String) throws(PushRelayError) {
    func refuse(_ why: String) -> PushRelayError {
      PushRelayError(code: .invalidConfiguration, field: "gateway", message: "the gateway URL \(why)")
    }
    guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
      throw refuse("must start with https:// (http:// on loopback)")
    }
    guard let (origin, rest, _) = RelayOrigin.parse(base), rest.isEmpty else {
      throw refuse("must be scheme://host[:port] with a valid host and port and nothing after it")
    }
    if !origin.isSecure, !origin.isLoopback { throw refuse("may use http only on loopback") }
  }
}
