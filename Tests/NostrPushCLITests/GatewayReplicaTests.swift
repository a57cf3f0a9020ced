import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import Testing
import _NostrPostgres

/// Two `nostr-push gateway --config` processes on one PostgreSQL database, sending to the APNs
/// stand-in over real TLS and HTTP/2: what one registers the other serves, a delivery sent to both
/// at once reaches APNs once, and `kill -9` of one while it delivers loses nothing (the relay's
/// retries at the other are each answered, and every wake reaches APNs).
@Suite(.timeLimit(.minutes(5))) struct GatewayReplicaTests {
  static var postgres: String? {
    guard let value = ProcessInfo.processInfo.environment["NOSTRPUSH_POSTGRES"], !value.isEmpty else {
      return nil
    }
    return value
  }

  /// One gateway process and the URL it answers at.
  struct Replica {
    var process: ChildProcess
    var base: String
  }

  /// A folder with the shared sealing key, the stand-in's client certificate and key (0600) and
  /// one configuration file per replica.
  struct Files {
    let path = NSTemporaryDirectory() + "gateway-replicas-" + UUID().uuidString

    init(standIn: APNsStandIn) throws {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
      try Data(key.utf8).write(to: URL(fileURLWithPath: path + "/gateway.key"))
      try FileManager.default.copyItem(atPath: standIn.clientCertificateFile, toPath: path + "/client.pem")
      try FileManager.default.copyItem(atPath: standIn.clientKeyFile, toPath: path + "/client.key")
      for name in ["gateway.key", "client.pem", "client.key"] {
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + "/" + name)
      }
    }

    /// Writes the configuration of a replica listening on `port` and returns its path.
    func config(port: Int, admin: Int, conninfo: String, standIn: APNsStandIn) throws -> String {
      let json = """
        {"public_url":"http://127.0.0.1:\(port)","listen":"127.0.0.1:\(port)","admin_listen":"127.0.0.1:\(admin)",
         "key_file":"gateway.key","store":{"postgres":"\(conninfo)"},"quota":{"per_10s":100000,"per_hour":100000},
         "apps":[{"app_profile":"chat","topic":"org.example.chat","environment":"sandbox",
                  "auth":{"certificate":{"cert_file":"client.pem","key_file":"client.key"}},
                  "alert":{"title":"Chat","body":"New activity"}}],
         "apns_url":"\(standIn.origin)","apns_ca_file":"\(standIn.caFile)"}
        """
      let file = path + "/config-\(port).json"
      try Data(json.utf8).write(to: URL(fileURLWithPath: file))
      return file
    }
  }

  /// Starts one replica; nil when the binary is not built.
  static func start(_ files: Files, conninfo: String, standIn: APNsStandIn) async throws -> Replica? {
    let port = try await ProductionGatewayCommandTests.freePort()
    let admin = try await ProductionGatewayCommandTests.freePort()
    let config = try files.config(port: port, admin: admin, conninfo: conninfo, standIn: standIn)
    guard let (process, line) = try await NostrPushBinary.startServer(["gateway", "--config", config]) else {
      return nil
    }
    let object = try? JSONReader().read(line).objectValue
    guard object?["listening"] == .string("http://127.0.0.1:\(port)") else {
      process.send(SIGKILL)
      let exit = await process.exited()
      throw ReplicaFailure(message: "the replica did not start: \(exit.stderrText)")
    }
    return Replica(process: process, base: "http://127.0.0.1:\(port)")
  }

  /// POSTs `body` to `path` on `replica` with NIP-98 by `key`: status and body text.
  static func post(_ replica: Replica, _ path: String, _ body: String, key: SecretKey) async throws
    -> (status: Int, body: String)
  {
    let bytes = Array(body.utf8)
    let url = replica.base + path
    let header = try NIP98.authorizationHeader(
      url: url, method: "POST", body: bytes, key: key, now: Int64(Date().timeIntervalSince1970))
    let (status, answer) = try await LoopbackFetch.send(
      url, method: "POST", headers: ["Authorization": header], body: bytes)
    return (status, String(decoding: answer, as: UTF8.self))
  }

  static func delivery(_ grant: String, _ requestID: String) -> String {
    let expiresAt = Int64(Date().timeIntervalSince1970) + 600
    return #"{"v":1,"endpoint_grant":"\#(grant)","request_id":"\#(requestID)","expires_at":\#(expiresAt)}"#
  }

  /// Delivers `requestID` to `replica` until it is accepted (an in-flight or retry answer is
  /// waited out, at most `retryAfter` seconds at a time), within `deadline`: the relay's retry loop.
  static func deliverUntilAccepted(
    _ replica: Replica, grant: String, requestID: String, relay: SecretKey, deadline: ContinuousClock.Instant
  ) async throws -> Int {
    var attempts = 0
    while true {
      attempts += 1
      let answer = try await post(replica, "/v1/deliveries/apns", delivery(grant, requestID), key: relay)
      if answer.status == 200, answer.body == #"{"status":"accepted"}"# { return attempts }
      guard answer.status == 503, ContinuousClock.now < deadline else {
        throw ReplicaFailure(message: "\(requestID): \(answer.status) \(answer.body)")
      }
      try await Task.sleep(for: .milliseconds(250))
    }
  }

  @Test(
    .enabled(
      if: postgres != nil,
      "PostgreSQL cases need NOSTRPUSH_POSTGRES: run them with `Scripts/with-postgres -- swift test`"))
  func twoProcessesSendEachRequestOnceAndAKilledOneLosesNothing() async throws {
    let base = try #require(Self.postgres)
    let database = "gw_replicas_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let admin = try PostgresConnection(connectionString: base)
    // Creating a database copies the template: under load that outlasts the connection's
    // default statement timeout, which is for the stores' statements, not for test set-up.
    try admin.execute("SET statement_timeout = 0; SET lock_timeout = 0")
    try admin.execute("CREATE DATABASE \(database)")
    let conninfo = base + " dbname=" + database
    let standIn = try await APNsStandIn.start()
    var replicas: [Replica] = []
    do {
      let files = try Files(standIn: standIn)
      defer { try? FileManager.default.removeItem(atPath: files.path) }
      guard let first = try await Self.start(files, conninfo: conninfo, standIn: standIn),
        let second = try await Self.start(files, conninfo: conninfo, standIn: standIn)
      else {
        Issue.record("nostr-push was not built")
        await standIn.stop()
        return
      }
      replicas = [first, second]
      try await exercise(first, second, standIn: standIn)
    } catch {
      Issue.record(error)
    }
    for replica in replicas { replica.process.send(SIGKILL) }
    for replica in replicas { _ = await replica.process.exited() }
    await standIn.stop()
    try? admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
    admin.close()
  }

  private func exercise(_ first: Replica, _ second: Replica, standIn: APNsStandIn) async throws {
    let owner = SecretKey.generate()
    let relay = SecretKey.generate()
    let token = String(repeating: "5e", count: 32)
    let now = Int64(Date().timeIntervalSince1970)
    // Registered through the first, delegated through the second: one state.
    let registered = try await Self.post(
      first, "/v1/installations",
      #"{"v":1,"app_profile":"chat","endpoint":"\#(token)","expires_at":\#(now + 30 * 86_400)}"#, key: owner)
    #expect(registered.status == 201, "\(registered.body)")
    let handle = try #require(
      try JSONReader().read(Array(registered.body.utf8)).objectValue?["installation_handle"]?.stringValue)
    let delegated = try await Self.post(
      second, "/v1/delegations",
      #"{"v":1,"installation_handle":"\#(handle)","relay_pubkey":"\#(relay.publicKeyHex)","generation":1,"expires_at":\#(now + 7 * 86_400)}"#,
      key: owner)
    #expect(delegated.status == 201, "\(delegated.body)")
    let grant = try #require(
      try JSONReader().read(Array(delegated.body.utf8)).objectValue?["endpoint_grant"]?.stringValue)

    // 1 000 deliveries, each sent to both replicas at once; then each retried until accepted.
    let ids = (0..<1_000).map { _ in UUID().uuidString.lowercased() }
    let deadline = ContinuousClock.now + .seconds(120)
    for chunk in stride(from: 0, to: ids.count, by: 20) {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for id in ids[chunk..<min(chunk + 20, ids.count)] {
          for replica in [first, second] {
            group.addTask {
              _ = try await Self.deliverUntilAccepted(
                replica, grant: grant, requestID: id, relay: relay, deadline: deadline)
            }
          }
        }
        try await group.waitForAll()
      }
    }
    let sent = try await standIn.requests().compactMap { $0.header("apns-id") }
    #expect(sent.count == ids.count)
    #expect(Set(sent) == Set(ids))

    // kill -9 of the first while it delivers 200 more; the relay retries each at the second.
    let more = (0..<200).map { _ in UUID().uuidString.lowercased() }
    let inFlight = Task {
      await withTaskGroup(of: Void.self) { group in
        for id in more {
          group.addTask {
            _ = try? await Self.post(first, "/v1/deliveries/apns", Self.delivery(grant, id), key: relay)
          }
        }
      }
    }
    while try await standIn.stats().requests < ids.count + 20, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    first.process.send(SIGKILL)
    #expect(await first.process.exited().killedBySignal)
    await inFlight.value
    let retryDeadline = ContinuousClock.now + .seconds(90)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for id in more {
        group.addTask {
          _ = try await Self.deliverUntilAccepted(
            second, grant: grant, requestID: id, relay: relay, deadline: retryDeadline)
        }
      }
      try await group.waitForAll()
    }
    let all = try await standIn.requests().compactMap { $0.header("apns-id") }
    let afterKill = all.dropFirst(ids.count)
    // Nothing lost: every wake reached APNs. A wake the killed process had sent but not yet
    // recorded may be sent again once its 30 s claim lapses; none is sent more than twice.
    #expect(Set(afterKill) == Set(more))
    let counts = Dictionary(afterKill.map { ($0, 1) }, uniquingKeysWith: +)
    #expect(counts.values.allSatisfy { $0 <= 2 })
  }
}

/// A replica step that did not go as the test needs.
struct ReplicaFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
