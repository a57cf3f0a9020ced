import Foundation
import NostrEvent
import NostrHTTP
import NostrHTTPServer
import NostrPushCore
import PushGateway
import _NostrSQLite

extension BenchmarkRegistry {
  /// The gateway admission row of `Docs/Performance.md`: deliveries per second through
  /// `PushGateway.handle` (NIP-98 verify, grant open, the admission transaction, the outcome
  /// transaction) with an APNs transport that answers 200 at once, on a SQLite store with
  /// `synchronous=FULL`, beside one `synchronous=FULL` commit of one row on the same disk.
  static func gatewayBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let bench = try GatewayAdmissionBench(devices: 50)
    let deliveries = quick ? 200 : 1000
    let row = Benchmark(
      module: "PushGateway",
      name:
        "admission alone: deliveries/s through PushGateway.handle, SQLite synchronous=FULL, APNs answering at once",
      unit: "deliveries/s", baselineName: "one synchronous=FULL commit of one row, per second",
      target: "≥ 0.5 × baseline", baseline: { try bench.commitsPerSecond(count: deliveries) },
      measured: { try bench.deliveriesPerSecond(count: deliveries) },
      passes: { summary in summary.ratio.map { $0 >= 0.5 } })
    return ([row], [])
  }
}

/// An APNs transport that answers 200 at once: the row measures the gateway, not Apple.
private struct AcceptingAPNsTransport: APNsTransport {
  func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws(HTTPTransportError)
    -> APNsResponse
  {
    APNsResponse(status: 200)
  }
}

/// A gateway on a SQLite file in a temporary folder with `devices` installations delegated to one
/// relay, and a plain SQLite file for the baseline's commits.
private final class GatewayAdmissionBench: @unchecked Sendable {
  static let publicURL = "https://push.example.org"
  let folder: URL
  let gateway: PushGateway
  let relay = SecretKey.generate()
  var grants: [String] = []
  let commits: SQLiteConnection<SQLiteFailureBox>
  var committed: Int64 = 0

  struct SQLiteFailureBox: Error { var failure: SQLiteFailure }

  init(devices: Int) throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gateway-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = try SQLitePushGatewayStore(path: folder.appendingPathComponent("gateway.sqlite").path)
    let keys = try PushGatewayKeys(
      current: PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText()))
    let app = try APNsApp(
      topic: "org.example.chat", environment: .production, credential: .certificate, alertTitle: "T",
      alertBody: "B")
    gateway = try PushGateway(
      publicURL: Self.publicURL, store: store, keys: keys,
      apps: ["chat": APNsClient(app: app, transport: AcceptingAPNsTransport())], quotaPer10Seconds: 100_000,
      quotaPerHour: 100_000, log: { _ in })
    commits = try SQLiteConnection(
      path: folder.appendingPathComponent("baseline.sqlite").path, busyTimeoutMilliseconds: 5000,
      failure: { SQLiteFailureBox(failure: $0) })
    _ = try commits.first("PRAGMA journal_mode = WAL") { $0.text(0) }
    try commits.execute(
      "PRAGMA synchronous = FULL; CREATE TABLE IF NOT EXISTS commits (n INTEGER PRIMARY KEY)")
    let now = Int64(Date().timeIntervalSince1970)
    for index in 0..<devices {
      let owner = SecretKey.generate()
      let token = String(format: "%064lx", 0xB0B0_0000 + index)
      let registered = try post(
        "/v1/installations",
        #"{"v":1,"app_profile":"chat","endpoint":"\#(token)","expires_at":\#(now + 86_400)}"#,
        key: owner)
      guard let handle = Self.member(registered, "installation_handle") else {
        throw BenchFailure.setup(registered)
      }
      let delegated = try post(
        "/v1/delegations",
        #"{"v":1,"installation_handle":"\#(handle)","relay_pubkey":"\#(relay.publicKeyHex)","generation":1,"expires_at":\#(now + 3600)}"#,
        key: owner)
      guard let grant = Self.member(delegated, "endpoint_grant") else { throw BenchFailure.setup(delegated) }
      grants.append(grant)
    }
  }

  deinit { try? FileManager.default.removeItem(at: folder) }

  enum BenchFailure: Error {
    case setup(String)
    case refused(Int)
  }

  private static func member(_ body: String, _ name: String) -> String? {
    guard let range = body.range(of: "\"\(name)\":\"") else { return nil }
    return String(body[range.upperBound...].prefix { $0 != "\"" })
  }

  private func request(_ path: String, _ body: String, key: SecretKey) throws -> HTTPServerRequest {
    let bytes = Array(body.utf8)
    let header = try NIP98.authorizationHeader(
      url: Self.publicURL + path, method: "POST", body: bytes, key: key,
      now: Int64(Date().timeIntervalSince1970))
    return HTTPServerRequest(method: "POST", target: path, headers: [("authorization", header)], body: bytes)
  }

  private func post(_ path: String, _ body: String, key: SecretKey) throws -> String {
    let request = try request(path, body, key: key)
    let gateway = gateway
    let response = try blockingRun { await gateway.handle(request) }
    return String(decoding: response.body, as: UTF8.self)
  }

  /// `count` deliveries (signed before the clock starts), sequential, per second.
  func deliveriesPerSecond(count: Int) throws -> Double {
    let expiresAt = Int64(Date().timeIntervalSince1970) + 600
    let requests = try (0..<count).map { index in
      try request(
        PushGateway.deliveryPath,
        #"{"v":1,"endpoint_grant":"\#(grants[index % grants.count])","request_id":"\#(UUID().uuidString.lowercased())","expires_at":\#(expiresAt)}"#,
        key: relay)
    }
    let gateway = gateway
    let seconds = try blockingRun {
      let start = Stopwatch.mark()
      for request in requests {
        let response = await gateway.handle(request)
        guard response.status == 200 else { throw BenchFailure.refused(response.status) }
      }
      return Stopwatch.seconds(since: start)
    }
    return Double(count) / seconds
  }

  /// `count` one-row commits in `synchronous=FULL`, per second.
  func commitsPerSecond(count: Int) throws -> Double {
    let seconds = try Stopwatch.seconds {
      for _ in 0..<count {
        committed += 1
        try commits.immediateTransaction { () throws(SQLiteFailureBox) in
          try commits.run("INSERT INTO commits (n) VALUES (?)", [.integer(committed)])
        }
      }
    }
    return Double(count) / seconds
  }
}
