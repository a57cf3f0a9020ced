import Foundation
import NostrEvent
import NostrJSON
import NostrWebSocket
import PushRelay

/// A loopback push gateway with its own key: it issues opaque endpoint grants, checks each
/// delivery strictly (body form, exact NIP-98, grant, expiry, request-id replay, a per-device
/// quota answered 429 `rate_limited` with `retry_after_seconds`), answers from a script, and
/// records the APNs request it would send.
///
/// It stands in for the gateway of `Docs/VendoringPushRelay.md` in tests, the demo and the benchmarks, so the
/// relay's `GatewayClient` and `DeliveryWorker` run against real HTTP over a real socket. It
/// serves on the fixture's `poll()` loop (`ConnectionLoop`), IPv4 loopback only:
/// ```swift
/// let gateway = GatewayFixture(configuration: GatewayFixtureConfiguration(now: 1_767_226_200))
/// let base = try await gateway.start()                   // http://127.0.0.1:<port>
/// let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "aa11")
/// gateway.script([GatewayScriptEntry(status: 503, body: #"{"retry_after_seconds":1}"#)])
/// // … the relay delivers …
/// #expect(gateway.deliveries().map(\.requestID) == [wake.requestID])
/// await gateway.stop()
/// ```
/// Routes: `POST /v1/test/grants` (no auth), `POST /v1/deliveries/<transport>`,
/// `GET /v1/test/deliveries`; error bodies are `{"error":"<code>"}`.
public final class GatewayFixture: Sendable {
  /// The APNs body of every recorded delivery: a content-free alert the extension rewrites.
  public static let apnsBody =
    #"{"aps":{"alert":{"body":"Reconnect to your relay now"},"mutable-content":1}}"#
  /// The largest delivery body accepted (8192 bytes); more is 413.
  package static let maxDeliveryBodyBytes = 8192
  /// The longest endpoint grant accepted in a delivery (4096 bytes).
  package static let maxGrantBytes = 4096
  /// The longest grant lifetime (30 days), also the default of `ttl_seconds`.
  public static let maxGrantTTLSeconds: Int64 = 2_592_000
  /// The largest generation a grant may carry (2^53 − 1, a JSON-safe integer).
  package static let maxGeneration: Int64 = (1 << 53) - 1
  /// The longest device token, in hex characters (100 bytes, APNs' documented ceiling).
  package static let maxDeviceTokenHexLength = 200
  /// How many delivery and request records are kept; past it the oldest tenth goes.
  package static let recordCapacity = 100_000
  /// How many request ids kept by a terminal answer are remembered; past it the oldest go.
  package static let keptRequestIDCapacity = 200_000
  /// The NIP-98 window: seconds back and ahead of the gateway's clock.
  package static let authWindow = (back: Int64(60), ahead: Int64(30))
  /// The largest request body the HTTP layer reads (64 KiB), so an oversized delivery gets the
  /// gateway's own 413 after the transport check; beyond it the HTTP layer answers 413.
  static let httpBodyLimit = 64 * 1024

  private struct ScriptSlot {
    var entry: GatewayScriptEntry
    var remaining: Int
  }

  private struct State {
    var fixedNow: Int64?
    var offset: Int64 = 0
    var script: [ScriptSlot] = []
    var deliveries: [GatewayDelivery] = []
    var requests: [GatewayRequestRecord] = []
    var keptRequestIDs: Set<String> = []
    var keptOrder: [String] = []
    var answerTimes: [String: [Int64]] = [:]
  }

  /// The gateway's public key (64 lowercase hex): the key its grants are sealed to.
  public let pubkey: String
  /// The configuration the fixture was created with.
  public let configuration: GatewayFixtureConfiguration
  private let key: SecretKey
  private let seal: GatewayGrantSeal
  private let clock: (@Sendable () -> Int64)?
  private let state: Locked<State>
  private let verifier: NIP98Verifier
  private let host = LoopbackServerHost()

  /// Creates a gateway with `key` (a fresh one when nil); nothing is bound until `start()`.
  ///
  /// `clock`, when given, is the gateway's clock (Unix seconds), so one injected clock can drive
  /// relay, worker and gateway alike; otherwise `configuration.now` (moved by `advanceClock(by:)`)
  /// or the system clock.
  public init(
    key: SecretKey? = nil, configuration: GatewayFixtureConfiguration = GatewayFixtureConfiguration(),
    clock: (@Sendable () -> Int64)? = nil
  ) throws(RelayFixtureError) {
    let key = key ?? SecretKey.generate()
    self.key = key
    self.pubkey = key.publicKeyHex
    self.configuration = configuration
    self.clock = clock
    guard let seal = GatewayGrantSeal(secretKey: key) else {
      throw RelayFixtureError(
        code: .invalidData, field: "key", message: "no NIP-44 conversation key for this key")
    }
    self.seal = seal
    self.state = Locked(State(fixedNow: configuration.now))
    self.verifier = NIP98Verifier(
      windowBack: Self.authWindow.back, windowAhead: Self.authWindow.ahead, urlMatch: .exact,
      methodMatch: .exact, requirePayload: true, requireNonce: true, replayCapacity: 100_000)
  }

  /// Binds the configured IPv4 loopback address and returns the base URL
  /// (`http://127.0.0.1:<port>`).
  ///
  /// Throws `ipv4LoopbackOnly` for `::1`, `nonLoopbackHost`/`invalidHost` for other addresses,
  /// `addressInUse` when the port is taken and `invalidState` when called twice.
  @discardableResult
  public func start() async throws(RelayFixtureError) -> URL {
    let address = try LoopbackAddress(host: configuration.host)
    guard case .ipv4 = address.storage else {
      throw RelayFixtureError(
        code: .ipv4LoopbackOnly, field: "host",
        message:
          "the gateway fixture binds IPv4 loopback only (127.0.0.0/8): FoundationNetworking on Linux cannot fetch a URL with an IPv6 literal"
      )
    }
    var settings = RelayFixtureConfiguration(
      host: configuration.host, port: configuration.port, requestLogCapacity: 0)
    settings.maxBodyBytes = Self.httpBodyLimit
    let origin = try host.start(address: address, configuration: settings) { [self] request, origin in
      respond(to: request, origin: origin.description)
    }
    return URL(string: origin.description)!
  }

  /// Stops accepting, closes every connection and returns once the serving thread has ended.
  public func stop() async {
    await host.stop()
  }

  /// The base URL while running (`http://127.0.0.1:<port>`), else nil.
  public var baseURL: URL? {
    host.origin.flatMap { URL(string: $0.description) }
  }

  // MARK: Clock

  /// The gateway's clock now, in Unix seconds.
  public func now() -> Int64 {
    if let clock { return clock() }
    return state.withLock { state in
      (state.fixedNow ?? Int64(Date().timeIntervalSince1970)) + state.offset
    }
  }

  /// Moves the gateway's own clock by `seconds` (the fixed one, or an offset to the system
  /// clock); an injected `clock` is not moved.
  public func advanceClock(by seconds: Int64) {
    state.withLock { state in
      if state.fixedNow != nil { state.fixedNow! += seconds } else { state.offset += seconds }
    }
  }

  /// Fixes the gateway's own clock at `now` (nil: the system clock, offset cleared).
  public func setNow(_ now: Int64?) {
    state.withLock { state in
      state.fixedNow = now
      state.offset = 0
    }
  }

  // MARK: Grants, script and records

  /// Issues a grant as `POST /v1/test/grants` does: the sealed grant and its expiry (now + ttl).
  ///
  /// Throws `invalidData` (field `relay_pubkey`, `device_token`, `generation`, `ttl_seconds`)
  /// for a value the route answers with 400 `invalid_request`.
  public func issueGrant(
    relayPubkey: String, deviceToken: String, generation: Int64 = 1,
    ttlSeconds: Int64 = GatewayFixture.maxGrantTTLSeconds
  ) throws(RelayFixtureError) -> (grant: String, expiresAt: Int64) {
    guard NostrID(relayPubkey) != nil else {
      throw RelayFixtureError(code: .invalidData, field: "relay_pubkey", message: "must be 64 lowercase hex")
    }
    guard Self.isDeviceToken(deviceToken) else {
      throw RelayFixtureError(
        code: .invalidData, field: "device_token",
        message: "must be 2...\(Self.maxDeviceTokenHexLength) hex characters, an even count")
    }
    guard (1...Self.maxGeneration).contains(generation) else {
      throw RelayFixtureError(code: .invalidData, field: "generation", message: "must be in 1...2^53-1")
    }
    guard (1...Self.maxGrantTTLSeconds).contains(ttlSeconds) else {
      throw RelayFixtureError(
        code: .invalidData, field: "ttl_seconds", message: "must be in 1...\(Self.maxGrantTTLSeconds)")
    }
    let expiresAt = now() + ttlSeconds
    let grant = GatewayGrant(
      relayPubkey: relayPubkey, deviceToken: deviceToken.lowercased(), generation: generation,
      expiresAt: expiresAt)
    guard let sealed = seal.seal(grant) else {
      throw RelayFixtureError(code: .invalidData, field: "grant", message: "the grant could not be sealed")
    }
    return (sealed, expiresAt)
  }

  /// Replaces the script: the answers given, in order, to attempts that pass every check.
  public func script(_ entries: [GatewayScriptEntry]) {
    state.withLock { $0.script = entries.map { ScriptSlot(entry: $0, remaining: max(1, $0.times)) } }
  }

  /// Every APNs request recorded so far (accepted deliveries), oldest first.
  public func deliveries() -> [GatewayDelivery] {
    state.withLock { $0.deliveries }
  }

  /// Every delivery request answered so far, in arrival order.
  public func requests() -> [GatewayRequestRecord] {
    state.withLock { $0.requests }
  }

  /// How many delivery request records are held (`requests().count`, up to `recordCapacity`)
  /// without copying them: what a benchmark waits on.
  package func requestCount() -> Int {
    state.withLock { $0.requests.count }
  }

  /// Whether `text` is a device token: an even number (2…`maxDeviceTokenHexLength`) of hex
  /// characters of either case.
  package static func isDeviceToken(_ text: String) -> Bool {
    let count = text.utf8.count
    guard count >= 2, count <= maxDeviceTokenHexLength, count % 2 == 0 else { return false }
    return text.utf8.allSatisfy { byte in
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
  }

  // MARK: Serving

  private func respond(to request: HTTPRequest, origin: String) -> (
    response: OutboundResponse, delay: Duration
  ) {
    let path = request.path
    let answer: (HTTPResponse, Int)
    if path == "/v1/test/grants" {
      answer = (grantRoute(request), 0)
    } else if path == "/v1/test/deliveries" {
      answer = (listRoute(request), 0)
    } else if path.hasPrefix("/v1/deliveries/") {
      answer = deliveryRoute(
        request, transport: String(path.dropFirst("/v1/deliveries/".count)), origin: origin)
    } else {
      answer = (.error(404, "not_found"), 0)
    }
    return (
      OutboundResponse(answer.0, action: nil, keepAlive: request.keepAlive), .milliseconds(answer.1)
    )
  }

  private func grantRoute(_ request: HTTPRequest) -> HTTPResponse {
    guard request.method == "POST" else {
      return .error(405, "method_not_allowed", extraHeaders: [("Allow", "POST")])
    }
    guard let object = (try? JSONReader(maxDepth: 2).read(request.body))?.objectValue,
      object.keys.allSatisfy({ ["relay_pubkey", "device_token", "generation", "ttl_seconds"].contains($0) }),
      let relay = object["relay_pubkey"]?.stringValue, let token = object["device_token"]?.stringValue
    else { return .error(400, "invalid_request") }
    var generation: Int64 = 1
    if let value = object["generation"] {
      guard let number = value.integerValue else { return .error(400, "invalid_request") }
      generation = number
    }
    var ttl = Self.maxGrantTTLSeconds
    if let value = object["ttl_seconds"] {
      guard let number = value.integerValue else { return .error(400, "invalid_request") }
      ttl = number
    }
    guard
      let issued = try? issueGrant(
        relayPubkey: relay, deviceToken: token, generation: generation, ttlSeconds: ttl)
    else { return .error(400, "invalid_request") }
    return .json(
      200,
      JSONWriter.bytes(
        .object(
          JSONObject([
            JSONMember(key: "endpoint_grant", value: .string(issued.grant)),
            JSONMember(key: "expires_at", value: .integer(issued.expiresAt)),
          ]))))
  }

  private func listRoute(_ request: HTTPRequest) -> HTTPResponse {
    guard request.method == "GET" else {
      return .error(405, "method_not_allowed", extraHeaders: [("Allow", "GET")])
    }
    let (deliveries, requests) = state.withLock { ($0.deliveries, $0.requests) }
    return .json(
      200,
      JSONWriter.bytes(
        .object(
          JSONObject([
            JSONMember(key: "deliveries", value: .array(deliveries.map(\.jsonValue))),
            JSONMember(key: "requests", value: .array(requests.map(\.jsonValue))),
          ]))))
  }

  /// The strict delivery body's values, read back only if the bytes are exactly its compact form.
  private struct DeliveryBody {
    var grant: String
    var requestID: String
    var expiresAt: Int64
  }

  private func deliveryRoute(
    _ request: HTTPRequest, transport: String, origin: String
  ) -> (HTTPResponse, Int) {
    guard transport == "apns" else { return (.error(404, "unsupported_transport"), 0) }
    guard request.method == "POST" else {
      return (.error(405, "method_not_allowed", extraHeaders: [("Allow", "POST")]), 0)
    }
    guard request.body.count <= Self.maxDeliveryBodyBytes else {
      return (recorded(.error(413, "payload_too_large"), requestID: nil, token: nil), 0)
    }
    guard let body = Self.strictBody(request.body) else {
      return (recorded(.error(400, "invalid_request"), requestID: nil, token: nil), 0)
    }
    let now = now()
    let signer: String
    do {
      signer =
        try verifier.verify(
          header: request.header("authorization"), url: origin + "/v1/deliveries/apns", method: "POST",
          body: request.body, now: now
        ).pubkey
    } catch  where error.code == .unavailable {
      // The replay set is full of live ids: a refusal to retry, never a dead grant or bad auth.
      let retry = HTTPResponse.json(503, Array(#"{"status":"retry","retry_after_seconds":1}"#.utf8))
      return (recorded(retry, requestID: body.requestID, token: nil), 0)
    } catch {
      return (recorded(.error(401, "invalid_auth"), requestID: body.requestID, token: nil), 0)
    }
    guard let grant = seal.open(body.grant) else {
      return (recorded(.error(404, "invalid_grant"), requestID: body.requestID, token: nil), 0)
    }
    return state.withLock { state in
      func refuse() -> (HTTPResponse, Int) {
        state.requests.append(
          GatewayRequestRecord(requestID: body.requestID, deviceToken: grant.deviceToken, status: 404))
        Self.trim(&state.requests)
        return (.error(404, "invalid_grant"), 0)
      }
      guard grant.relayPubkey == signer, now <= body.expiresAt, body.expiresAt <= grant.expiresAt,
        !state.keptRequestIDs.contains(body.requestID)
      else { return refuse() }
      if configuration.quota > 0 {
        let window = GatewayFixtureConfiguration.quotaWindowSeconds
        let recent = (state.answerTimes[grant.deviceToken] ?? []).filter { $0 > now - window }
        state.answerTimes[grant.deviceToken] = recent
        if recent.count >= configuration.quota {
          // A quota refusal reads as one (`Docs/Robustness.md`), never as a dead grant: 429 with the
          // seconds until the oldest counted attempt leaves the window. It does not count itself.
          let retryAfter = max(1, (recent.min() ?? now) + window - now)
          state.requests.append(
            GatewayRequestRecord(requestID: body.requestID, deviceToken: grant.deviceToken, status: 429))
          Self.trim(&state.requests)
          return (
            .json(429, Array(#"{"status":"rate_limited","retry_after_seconds":\#(retryAfter)}"#.utf8)), 0
          )
        }
      }
      let entry = Self.takeEntry(for: grant.deviceToken, from: &state.script)
      let status = entry?.status ?? 200
      let bodyBytes = entry?.body.map { Array($0.utf8) } ?? Self.defaultBody(status: status, grant: grant)
      state.answerTimes[grant.deviceToken, default: []].append(now)
      if status != 429, status != 503 {
        state.keptRequestIDs.insert(body.requestID)
        state.keptOrder.append(body.requestID)
        if state.keptOrder.count > Self.keptRequestIDCapacity {
          let dropped = state.keptOrder.count / 10
          for id in state.keptOrder.prefix(dropped) { state.keptRequestIDs.remove(id) }
          state.keptOrder.removeFirst(dropped)
        }
      }
      if (200...299).contains(status), Self.isAccepted(bodyBytes) {
        state.deliveries.append(
          GatewayDelivery(
            requestID: body.requestID, deviceToken: grant.deviceToken, relayPubkey: signer, receivedAt: now,
            headers: [
              "apns-id": body.requestID, "apns-push-type": "alert", "apns-priority": "10",
              "apns-expiration": String(body.expiresAt), "apns-topic": configuration.topic,
            ], body: Self.apnsBody))
        Self.trim(&state.deliveries)
      }
      state.requests.append(
        GatewayRequestRecord(requestID: body.requestID, deviceToken: grant.deviceToken, status: status))
      Self.trim(&state.requests)
      return (.json(status, bodyBytes), entry?.delayMilliseconds ?? 0)
    }
  }

  private func recorded(_ response: HTTPResponse, requestID: String?, token: String?) -> HTTPResponse {
    state.withLock { state in
      state.requests.append(
        GatewayRequestRecord(requestID: requestID, deviceToken: token, status: response.status))
      Self.trim(&state.requests)
    }
    return response
  }

  private static func trim<T>(_ records: inout [T]) {
    if records.count > recordCapacity { records.removeFirst(recordCapacity / 10) }
  }

  private static func takeEntry(for token: String, from script: inout [ScriptSlot]) -> GatewayScriptEntry? {
    let index =
      script.firstIndex { $0.entry.deviceToken == token && $0.remaining > 0 }
      ?? script.firstIndex { $0.entry.deviceToken == nil && $0.remaining > 0 }
    guard let index else { return nil }
    script[index].remaining -= 1
    let entry = script[index].entry
    if script[index].remaining == 0 { script.remove(at: index) }
    return entry
  }

  /// The body answered when a script entry gives none.
  static func defaultBody(status: Int, grant: GatewayGrant) -> [UInt8] {
    switch status {
    case 200...299: Array(#"{"status":"accepted"}"#.utf8)
    case 410:
      Array(#"{"status":"invalid_endpoint","generation":\#(grant.generation),"invalid_at":null}"#.utf8)
    case 503: Array(#"{"status":"retry","retry_after_seconds":null}"#.utf8)
    case 429: Array(#"{"error":"rate_limited"}"#.utf8)
    case 400: Array(#"{"error":"invalid_request"}"#.utf8)
    case 401: Array(#"{"error":"invalid_auth"}"#.utf8)
    case 404: Array(#"{"error":"invalid_grant"}"#.utf8)
    default: Array(#"{"error":"scripted_status"}"#.utf8)
    }
  }

  private static func isAccepted(_ body: [UInt8]) -> Bool {
    (try? JSONReader().read(body))?.objectValue?["status"]?.stringValue == "accepted"
  }

  /// The body's values when `bytes` are exactly
  /// `{"v":1,"endpoint_grant":"…","request_id":"<uuid>","expires_at":<int>}` (compact, this order,
  /// NIP-01 escaping), else nil.
  private static func strictBody(_ bytes: [UInt8]) -> DeliveryBody? {
    guard
      let object = (try? JSONReader(maxDepth: 2, maxBytes: maxDeliveryBodyBytes).read(bytes))?.objectValue,
      object.keys == ["v", "endpoint_grant", "request_id", "expires_at"],
      object["v"] == .integer(1),
      let grant = object["endpoint_grant"]?.stringValue, (1...maxGrantBytes).contains(grant.utf8.count),
      let requestID = object["request_id"]?.stringValue, WakeRequestID.isValid(requestID),
      let expiresAt = object["expires_at"]?.integerValue,
      JSONWriter.bytes(.object(object)) == bytes
    else { return nil }
    return DeliveryBody(grant: grant, requestID: requestID, expiresAt: expiresAt)
  }
}
