import AppAttest
import Foundation
import NostrCurlHTTP
import NostrEvent
import NostrHTTP
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import NostrPushTesting

@testable import PushGateway

/// One answer of the gateway as a client saw it.
struct GatewayAnswerSeen {
  var status: Int
  var body: String

  /// The body as a JSON object.
  var object: JSONObject? { (try? JSONReader().read(Array(body.utf8)))?.objectValue }
}

/// A device token for tests: 32 bytes of hex made from `seed`.
func testToken(_ seed: Int) -> String { String(format: "%064lx", 0xA0A0_0000 + seed) }

/// A fresh lower-case UUID v4.
func freshRequestID() -> String { UUID().uuidString.lowercased() }

/// A real gateway on a loopback socket: a SQLite store in its own directory, a manual clock, an
/// APNs transport (recording by default), served through ``HTTPServer``, reached through libcurl.
final class GatewayHarness: Sendable {
  static let start0: Int64 = 1_767_226_200
  static let profile = "chat"

  let directory: URL
  let storePath: String
  let store: any PushGatewayStore
  let location: GatewayStoreLocation
  let clock: ManualUnixClock
  let recording: RecordingAPNsTransport
  let gateway: PushGateway
  let server: HTTPServer
  let http: CurlHTTPClient
  let baseURL: String
  let logs: Locked<[String]>
  let keys: PushGatewayKeys

  private init(
    directory: URL, storePath: String, store: any PushGatewayStore, location: GatewayStoreLocation,
    clock: ManualUnixClock,
    recording: RecordingAPNsTransport, gateway: PushGateway, server: HTTPServer, http: CurlHTTPClient,
    baseURL: String, keys: PushGatewayKeys, logs: Locked<[String]>
  ) {
    self.directory = directory
    self.storePath = storePath
    self.store = store
    self.location = location
    self.clock = clock
    self.recording = recording
    self.gateway = gateway
    self.server = server
    self.http = http
    self.baseURL = baseURL
    self.keys = keys
    self.logs = logs
  }

  /// Starts a gateway; `transport` replaces the recording one (the stand-in's), `keys` the
  /// fresh ones, `directory` and `clock` reuse another harness's (a restart).
  static func start(
    quota: (Int, Int) = (10, 120), keys: PushGatewayKeys? = nil, transport: (any APNsTransport)? = nil,
    credential: APNsApp.Credential = .certificate, directory: URL? = nil, clock: ManualUnixClock? = nil,
    owners: Set<String>? = nil, relayPubkeys: Set<String>? = nil, busyTimeoutMilliseconds: Int32 = 5000,
    backend: GatewayStoreBackend = .sqlite, appAttest: [String: any AppAttestVerifying] = [:]
  ) async throws -> GatewayHarness {
    let directory =
      directory
      ?? FileManager.default.temporaryDirectory.appendingPathComponent(
        "gateway-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let storePath = directory.appendingPathComponent("gateway.sqlite").path
    let location = try backend.makeLocation(in: directory)
    let store = try location.open(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    let clock = clock ?? ManualUnixClock(seconds: start0)
    let recording = RecordingAPNsTransport()
    let keys =
      try keys
      ?? PushGatewayKeys(
        current: PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText()))
    let app = try APNsApp(
      topic: "org.example.chat", environment: .sandbox, credential: credential, alertTitle: "Chat",
      alertBody: "New activity")
    let client = APNsClient(app: app, transport: transport ?? recording, clock: clock.clock)
    // The public URL is the server's own, known once it listens: the routes reach the gateway
    // through this box.
    let box = Locked<PushGateway?>(nil)
    let routes = (PushGateway.registrationPaths + PushGateway.challengePaths + [PushGateway.deliveryPath]).map
    {
      path in
      HTTPServerRoute("POST", path, maxBodyBytes: 64 * 1024) { request in
        await box.current!.handle(request)
      }
    }
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter(routes))
    let baseURL = "http://127.0.0.1:\(server.port)"
    let logs = Locked<[String]>([])
    let gateway = try PushGateway(
      publicURL: baseURL, store: store, keys: keys, apps: [profile: client], quotaPer10Seconds: quota.0,
      quotaPerHour: quota.1, owners: owners, relayPubkeys: relayPubkeys, clock: clock.clock,
      log: { line in logs.withLock { $0.append(line) } }, appAttest: appAttest)
    box.withLock { $0 = gateway }
    let harness = GatewayHarness(
      directory: directory, storePath: storePath, store: store, location: location, clock: clock,
      recording: recording,
      gateway: gateway, server: server, http: try CurlHTTPClient(), baseURL: baseURL, keys: keys, logs: logs)
    return harness
  }

  /// Stops the server and the client (the files stay for a restart; ``remove()`` deletes them).
  func stop() async {
    await server.stop(gracePeriod: .seconds(2))
    await http.shutdown()
  }

  /// Deletes the directory (and a PostgreSQL database).
  func remove() {
    location.cleanup()
    try? FileManager.default.removeItem(at: directory)
  }

  /// Now on the gateway's clock.
  var now: Int64 { clock.seconds }

  /// POSTs `body` to `path` with a NIP-98 header signed by `key` (for `signedURL`, default the
  /// exact URL; `header` replaces it).
  func post(
    _ path: String, _ body: String, key: SecretKey, signedURL: String? = nil, header: String? = nil
  ) async throws -> GatewayAnswerSeen {
    let bytes = Array(body.utf8)
    let url = baseURL + path
    let authorization =
      try header
      ?? NIP98.authorizationHeader(url: signedURL ?? url, method: "POST", body: bytes, key: key, now: now)
    let response = try await http.send(
      HTTPTransportRequest(
        url: url, method: "POST",
        headers: ["Content-Type": "application/json", "Authorization": authorization], body: bytes,
        maxResponseBytes: 64 * 1024),
      deadline: .now + .seconds(20))
    return GatewayAnswerSeen(status: response.status, body: String(decoding: response.body, as: UTF8.self))
  }

  /// Registers `token` for `owner`: the answer.
  func register(
    _ owner: SecretKey, token: String, profile: String = profile, lifetime: Int64 = 30 * 86_400
  ) async throws -> GatewayAnswerSeen {
    try await post(
      "/v1/installations",
      #"{"v":1,"app_profile":"\#(profile)","endpoint":"\#(token)","expires_at":\#(now + lifetime)}"#,
      key: owner)
  }

  /// Registers `token` and returns the handle (expecting 201 or 200).
  func installation(_ owner: SecretKey, token: String) async throws -> String {
    let answer = try await register(owner, token: token)
    guard [200, 201].contains(answer.status), let handle = answer.object?["installation_handle"]?.stringValue
    else {
      throw HarnessFailure(message: "registration answered \(answer.status) \(answer.body)")
    }
    return handle
  }

  /// Delegates `handle` to `relay`: the answer.
  func delegate(
    _ owner: SecretKey, handle: String, relay: String, generation: Int64 = 1, lifetime: Int64 = 7 * 86_400
  ) async throws -> GatewayAnswerSeen {
    try await post(
      "/v1/delegations",
      #"{"v":1,"installation_handle":"\#(handle)","relay_pubkey":"\#(relay)","generation":\#(generation),"expires_at":\#(now + lifetime)}"#,
      key: owner)
  }

  /// A grant for `relay` on a fresh installation of `token` (registered for `owner`).
  func grant(
    owner: SecretKey, relay: SecretKey, token: String, generation: Int64 = 1
  ) async throws -> (grant: String, handle: String) {
    let handle = try await installation(owner, token: token)
    let answer = try await delegate(owner, handle: handle, relay: relay.publicKeyHex, generation: generation)
    guard answer.status == 201, let grant = answer.object?["endpoint_grant"]?.stringValue else {
      throw HarnessFailure(message: "delegation answered \(answer.status) \(answer.body)")
    }
    return (grant, handle)
  }

  /// Delivers `grant` signed by `relay`, as the relay's `GatewayClient` writes it.
  func deliver(
    _ grant: String, relay: SecretKey, requestID: String = freshRequestID(), expiresAt: Int64? = nil,
    header: String? = nil
  ) async throws -> GatewayAnswerSeen {
    try await post(
      PushGateway.deliveryPath,
      #"{"v":1,"endpoint_grant":"\#(grant)","request_id":"\#(requestID)","expires_at":\#(expiresAt ?? now + 600)}"#,
      key: relay, header: header)
  }
}

/// A harness step that did not go as the test needs.
struct HarnessFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// Runs `body` with a started harness, then stops it and deletes its files.
func withGatewayHarness<T>(
  quota: (Int, Int) = (10, 120), transport: (any APNsTransport)? = nil,
  credential: APNsApp.Credential = .certificate,
  owners: Set<String>? = nil, relayPubkeys: Set<String>? = nil, busyTimeoutMilliseconds: Int32 = 5000,
  backend: GatewayStoreBackend = .sqlite, _ body: (GatewayHarness) async throws -> T
) async throws -> T {
  let harness = try await GatewayHarness.start(
    quota: quota, transport: transport, credential: credential, owners: owners, relayPubkeys: relayPubkeys,
    busyTimeoutMilliseconds: busyTimeoutMilliseconds, backend: backend)
  do {
    let value = try await body(harness)
    await harness.stop()
    harness.remove()
    return value
  } catch {
    await harness.stop()
    harness.remove()
    throw error
  }
}
