import Foundation
import NostrCurlHTTP
import NostrEvent
import NostrHTTP
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import PushGateway
import _NostrSQLite

extension BenchmarkRegistry {
  /// The gateway rows of `Docs/Performance.md` (`--only gateway`): admission alone against one
  /// `synchronous=FULL` commit; relay deliveries through the gateway to the APNs stand-in over
  /// TLS + HTTP/2 (rate and p99, 64 in flight) against the stand-in driven directly by the same
  /// client; and the gateway's CPU while 64 APNs requests wait on a stand-in that does not answer.
  static func gatewayBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let admissions = quick ? 300 : 1_000
    let admission = Benchmark(
      module: "PushGateway",
      name:
        "admission alone (store.admit: NIP-98 burn, fences, quota, request ledger; one transaction), SQLite FULL",
      unit: "deliveries/s", baselineName: "one synchronous=FULL commit of one row, per second",
      target: "≥ 0.5 × baseline",
      baseline: { try FullCommitBaseline.perSecond(count: admissions) },
      measured: { try blockingRun { try await AdmissionRun(count: admissions).perSecond() } },
      passes: { summary in summary.ratio.map { $0 >= 0.5 } })

    let deliveries = quick ? 320 : 1_280
    let world = try blockingRun { try await GatewayEndToEndWorld.start() }
    let rate = Benchmark(
      module: "PushGateway",
      name: "relay delivery → admission → APNs over TLS + HTTP/2 to the stand-in (libcurl), 64 in flight",
      unit: "deliveries/s", baselineName: "the stand-in driven directly by the same client, 64 in flight",
      target: "≥ 0.5 × baseline",
      baseline: { try blockingRun { try await world.direct(count: deliveries).rate } },
      measured: { try blockingRun { try await world.throughGateway(count: deliveries).rate } },
      passes: { summary in summary.ratio.map { $0 >= 0.5 } })
    let p99 = Benchmark(
      module: "PushGateway",
      name: "the same, p99 of one delivery", unit: "ms",
      baselineName: "the stand-in driven directly, p99", target: "≤ 3 × baseline",
      baseline: { try blockingRun { try await world.direct(count: deliveries).p99 } },
      measured: { try blockingRun { try await world.throughGateway(count: deliveries).p99 } },
      passes: { summary in summary.ratio.map { $0 <= 3 } })
    let stalled = Benchmark(
      module: "PushGateway",
      name: "process CPU while 64 deliveries wait on a stand-in that does not answer, 5 s",
      unit: "% of a core", baselineName: "—", target: "≤ 5 %", baseline: nil,
      measured: { try blockingRun { try await world.cpuWhileStalled(seconds: quick ? 2 : 5) } },
      passes: { summary in summary.median <= 5 })
    let notes = [
      "gateway: admission rows are \(admissions) sequential admissions of distinct request ids over 64 devices; "
        + "end-to-end rows are \(deliveries) deliveries per repetition, NIP-98 signed per request, "
        + "certificate auth to the python3-h2 stand-in (it is the same for both sides)",
      "gateway: the CPU row counts the whole benchmark process (relay-side client and gateway) by getrusage",
    ]
    return ([admission, rate, p99, stalled], notes)
  }
}

/// The baseline of the admission row: one row committed per `BEGIN IMMEDIATE … COMMIT` in a WAL
/// file with `synchronous=FULL`, in the same temporary folder as the gateway's store.
enum FullCommitBaseline {
  struct Failure: Error { var failure: SQLiteFailure }

  static func perSecond(count: Int) throws -> Double {
    let file = TemporarySQLiteFile(prefix: "gateway-commit")
    defer { file.remove() }
    let db = try SQLiteConnection<Failure>(path: file.path, busyTimeoutMilliseconds: 5000) {
      Failure(failure: $0)
    }
    _ = try db.query("PRAGMA journal_mode = WAL") { $0.text(0) }
    try db.execute("PRAGMA synchronous = FULL; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    let seconds = try Stopwatch.seconds {
      for index in 0..<count {
        try db.immediateTransaction { () throws(Failure) in
          _ = try db.run("INSERT INTO t(id, v) VALUES (?, ?)", [.integer(Int64(index)), .text("x")])
        }
      }
    }
    return Double(count) / seconds
  }
}

/// `count` admissions straight into a fresh `SQLitePushGatewayStore` with 64 registered,
/// delegated devices: each a new NIP-98 id and `request_id`, quota high enough never to refuse.
struct AdmissionRun: Sendable {
  let count: Int

  func perSecond() async throws -> Double {
    let file = TemporarySQLiteFile(prefix: "gateway-admission")
    defer { file.remove() }
    let store = try SQLitePushGatewayStore(path: file.path)
    let now = Int64(Date().timeIntervalSince1970)
    let relay = SecretKey.generate().publicKeyHex
    var devices: [(delegation: String, epoch: Int64)] = []
    for device in 0..<64 {
      let owner = SecretKey.generate().publicKeyHex
      let handle = UUID().uuidString.lowercased()
      let registered = try await store.register(
        InstallationRegistration(
          auth: Self.burn(now), owner: owner, appProfile: "chat", fingerprints: [Self.hex(device)],
          newHandle: handle, sealedToken: "sealed-\(device)", tokenKid: "k1", expiresAt: now + 86_400,
          now: now,
          maxPerOwner: 16))
      guard case .created(_, let epoch, _) = registered else {
        throw PipelineRunError("register: \(registered)")
      }
      let delegated = try await store.delegate(
        DelegationRequest(
          auth: Self.burn(now), owner: owner, handle: handle, relayPubkey: relay, generation: 1,
          expiresAt: now + 3_600, newDelegationID: UUID().uuidString.lowercased(), now: now,
          maxPerInstallation: 32))
      guard case .delegated(let delegation, _, _) = delegated else {
        throw PipelineRunError("delegate: \(delegated)")
      }
      devices.append((delegation, epoch))
    }
    let started = ContinuousClock.now
    for index in 0..<count {
      let device = devices[index % devices.count]
      let result = try await store.admit(
        DeliveryAdmission(
          auth: Self.burn(now), relayPubkey: relay, delegationID: device.delegation, appProfile: "chat",
          epoch: device.epoch, generation: 1, requestID: UUID().uuidString.lowercased(),
          wakeExpiresAt: now + 600, now: now, quotaPer10Seconds: 100_000, quotaPerHour: 100_000,
          inFlightSeconds: 30))
      guard case .admitted = result else { throw PipelineRunError("admission \(index): \(result)") }
    }
    let elapsed = ContinuousClock.now - started
    return Double(count)
      / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
  }

  static func burn(_ now: Int64) -> AuthBurn {
    AuthBurn(id: hex(Int.random(in: 0...Int.max)), expiresAt: now + 120)
  }

  static func hex(_ seed: Int) -> String { String(format: "%064lx", seed) }
}

/// A gateway on loopback (SQLite store, certificate auth) in front of the APNs stand-in, 64
/// registered and delegated devices, and the relay side's libcurl client; kept for every
/// repetition of the end-to-end rows.
final class GatewayEndToEndWorld: Sendable {
  static let inFlight = 64

  let standIn: APNsStandIn
  let server: HTTPServer
  let baseURL: String
  let relay: SecretKey
  let grants: [String]
  let tokens: [String]
  let relayClient: CurlHTTPClient
  let directClient: APNsClient
  let storeFile: TemporarySQLiteFile

  private init(
    standIn: APNsStandIn, server: HTTPServer, baseURL: String, relay: SecretKey, grants: [String],
    tokens: [String], relayClient: CurlHTTPClient, directClient: APNsClient, storeFile: TemporarySQLiteFile
  ) {
    self.standIn = standIn
    self.server = server
    self.baseURL = baseURL
    self.relay = relay
    self.grants = grants
    self.tokens = tokens
    self.relayClient = relayClient
    self.directClient = directClient
    self.storeFile = storeFile
  }

  static func start() async throws -> GatewayEndToEndWorld {
    let standIn = try await APNsStandIn.start()
    let certificate = CurlClientCertificate(
      certificateFile: standIn.clientCertificateFile, keyFile: standIn.clientKeyFile)
    let app = try APNsApp(
      topic: "org.example.chat", environment: .sandbox, credential: .certificate, alertTitle: "Chat",
      alertBody: "New activity")
    func client() throws -> APNsClient {
      let curl = try CurlHTTPClient(caFile: standIn.caFile, clientCertificate: certificate)
      return APNsClient(app: app, transport: CurlAPNsTransport(client: curl, origin: standIn.origin))
    }
    let storeFile = TemporarySQLiteFile(prefix: "gateway-e2e")
    let store = try SQLitePushGatewayStore(path: storeFile.path)
    let keys = try PushGatewayKeys(
      current: PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText()))
    let box = Locked<PushGateway?>(nil)
    let routes = (PushGateway.registrationPaths + [PushGateway.deliveryPath]).map { path in
      HTTPServerRoute("POST", path, maxBodyBytes: 64 * 1024) { request in await box.current!.handle(request) }
    }
    // Every relay-side connection comes from 127.0.0.1, as behind a proxy: the per-IP bound is the
    // total, as `nostr-push gateway --config` sets it.
    let server = try HTTPServer.start(
      HTTPServerConfiguration(maxConnections: 1024, maxConnectionsPerIP: 1024),
      router: HTTPServerRouter(routes))
    let baseURL = "http://127.0.0.1:\(server.port)"
    let gateway = try PushGateway(
      publicURL: baseURL, store: store, keys: keys, apps: ["chat": try client()], quotaPer10Seconds: 100_000,
      quotaPerHour: 100_000, log: { _ in })
    box.withLock { $0 = gateway }
    // HTTP/1.1 to the gateway: one request per connection at a time, so 64 in flight need 64.
    let relayClient = try CurlHTTPClient(maxConnectionsPerHost: inFlight)
    let relay = SecretKey.generate()
    var grants: [String] = []
    var tokens: [String] = []
    let now = Int64(Date().timeIntervalSince1970)
    for device in 0..<inFlight {
      let owner = SecretKey.generate()
      let token = String(format: "%064lx", 0xB0B0_0000 + device)
      let registered = try await post(
        relayClient, baseURL, "/v1/installations",
        #"{"v":1,"app_profile":"chat","endpoint":"\#(token)","expires_at":\#(now + 86_400)}"#, key: owner)
      guard let handle = registered.object?["installation_handle"]?.stringValue else {
        throw PipelineRunError("register: \(registered.status)")
      }
      let delegated = try await post(
        relayClient, baseURL, "/v1/delegations",
        #"{"v":1,"installation_handle":"\#(handle)","relay_pubkey":"\#(relay.publicKeyHex)","generation":1,"expires_at":\#(now + 3_600)}"#,
        key: owner)
      guard let grant = delegated.object?["endpoint_grant"]?.stringValue else {
        throw PipelineRunError("delegate: \(delegated.status)")
      }
      grants.append(grant)
      tokens.append(token)
    }
    return GatewayEndToEndWorld(
      standIn: standIn, server: server, baseURL: baseURL, relay: relay, grants: grants, tokens: tokens,
      relayClient: relayClient, directClient: try client(), storeFile: storeFile)
  }

  /// POSTs `body` with NIP-98 by `key`: the status and the answer as a JSON object.
  static func post(_ client: CurlHTTPClient, _ base: String, _ path: String, _ body: String, key: SecretKey)
    async throws -> (status: Int, object: JSONObject?)
  {
    let bytes = Array(body.utf8)
    let url = base + path
    let header = try NIP98.authorizationHeader(
      url: url, method: "POST", body: bytes, key: key, now: Int64(Date().timeIntervalSince1970))
    let response = try await client.send(
      HTTPTransportRequest(
        url: url, method: "POST", headers: ["Content-Type": "application/json", "Authorization": header],
        body: bytes, maxResponseBytes: 16 * 1024),
      deadline: .now + .seconds(30))
    return (response.status, (try? JSONReader().read(response.body))?.objectValue)
  }

  /// `count` deliveries through the gateway, 64 in flight: the rate and the p99 in ms.
  func throughGateway(count: Int) async throws -> (rate: Double, p99: Double) {
    try await timed(count: count) { [self] index in
      let now = Int64(Date().timeIntervalSince1970)
      let body =
        #"{"v":1,"endpoint_grant":"\#(grants[index % grants.count])","request_id":"\#(UUID().uuidString.lowercased())","expires_at":\#(now + 600)}"#
      let answer = try await Self.post(relayClient, baseURL, PushGateway.deliveryPath, body, key: relay)
      guard answer.status == 200 else { throw PipelineRunError("delivery answered \(answer.status)") }
    }
  }

  /// `count` APNs requests straight to the stand-in through the same client, 64 in flight.
  func direct(count: Int) async throws -> (rate: Double, p99: Double) {
    try await timed(count: count) { [self] index in
      let wake = try APNsWake(
        deviceToken: tokens[index % tokens.count], requestID: UUID().uuidString.lowercased(),
        expiresAt: Int64(Date().timeIntervalSince1970) + 600)
      let outcome = await directClient.deliver(wake, deadline: .now + .seconds(30))
      guard outcome == .accepted else { throw PipelineRunError("direct: \(outcome)") }
    }
  }

  /// The process's CPU (user + system, % of one core) over `seconds` while 64 deliveries wait
  /// on stalled APNs answers (each gets the gateway's 503 retry when its APNs deadline passes).
  func cpuWhileStalled(seconds: Int) async throws -> Double {
    let stalled = tokens.map { "\"\($0)\":{\"stall\":true}" }.joined(separator: ",")
    try await standIn.script("{" + stalled + "}")
    let waiting = Task { [self] in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<Self.inFlight {
          group.addTask {
            let now = Int64(Date().timeIntervalSince1970)
            let body =
              #"{"v":1,"endpoint_grant":"\#(self.grants[index])","request_id":"\#(UUID().uuidString.lowercased())","expires_at":\#(now + 600)}"#
            _ = try await Self.post(
              self.relayClient, self.baseURL, PushGateway.deliveryPath, body, key: self.relay)
          }
        }
        try await group.waitForAll()
      }
    }
    try await Task.sleep(for: .milliseconds(500))
    let before = Self.cpuSeconds()
    let started = ContinuousClock.now
    try await Task.sleep(for: .seconds(seconds))
    let used = Self.cpuSeconds() - before
    let elapsed = ContinuousClock.now - started
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    waiting.cancel()
    _ = try? await waiting.value
    // Unstall for the next repetition: an empty script answers 200 again.
    try await standIn.script("{" + tokens.map { "\"\($0)\":{\"status\":200}" }.joined(separator: ",") + "}")
    return 100 * used / wall
  }

  private func timed(count: Int, _ one: @escaping @Sendable (Int) async throws -> Void) async throws
    -> (rate: Double, p99: Double)
  {
    let started = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
      for lane in 0..<Self.inFlight {
        group.addTask {
          var samples: [Double] = []
          for index in stride(from: lane, to: count, by: Self.inFlight) {
            let begun = ContinuousClock.now
            try await one(index)
            let took = ContinuousClock.now - begun
            samples.append(Double(took.components.seconds) * 1e3 + Double(took.components.attoseconds) / 1e15)
          }
          return samples
        }
      }
      var all: [Double] = []
      for try await samples in group { all += samples }
      return all.sorted()
    }
    let elapsed = ContinuousClock.now - started
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
    return (Double(count) / wall, p99)
  }

  static func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }
}
