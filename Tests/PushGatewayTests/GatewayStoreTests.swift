import CSQLite
import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import Testing

@testable import PushGateway

@Suite struct GatewayStoreTests {
  private static func temporaryStorePath() throws -> (directory: URL, path: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gateway-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return (directory, directory.appendingPathComponent("gateway.sqlite").path)
  }

  @Test func servesEveryStatementFromAnIndex() throws {
    let (directory, path) = try Self.temporaryStorePath()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLitePushGatewayStore(path: path)
    for (name, sql) in GatewayStatements.all {
      let plan = try store.queryPlan(sql)
      let scans = plan.filter { $0.hasPrefix("SCAN") }
      #expect(scans.isEmpty, "\(name): \(plan)")
      // An upsert's WHERE is on the conflicting row, found through the conflict target's index.
      if sql.contains("WHERE"), !sql.hasPrefix("INSERT") {
        #expect(plan.contains { $0.hasPrefix("SEARCH") }, "\(name): \(plan)")
      }
    }
  }

  @Test func createsItsFileOwnerOnlyInWALWithFullSync() throws {
    let (directory, path) = try Self.temporaryStorePath()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLitePushGatewayStore(path: path)
    let durability = try store.durability()
    #expect(durability.journalMode == "wal")
    #expect(durability.synchronous == 2)
    for file in [path, path + "-wal", path + "-shm"] {
      let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
      #expect(mode == 0o600, "\(file)")
    }
    for bad in ["", ":memory:"] {
      let error = try #require(throws: PushGatewayError.self) { _ = try SQLitePushGatewayStore(path: bad) }
      #expect(error.code == .invalidConfiguration)
    }
  }

  @Test func keepsNoPlaintextTokenInTheDatabaseLogsOrMetrics() async throws {
    let tokens = (0..<6).map { testToken(600 + $0) }
    try await withGatewayHarness { harness in
      let relay = SecretKey.generate()
      var handles: [String] = []
      for token in tokens.prefix(4) {
        let owner = SecretKey.generate()
        let (grant, handle) = try await harness.grant(owner: owner, relay: relay, token: token)
        handles.append(handle)
        #expect(!grant.contains(token))
        #expect(try await harness.deliver(grant, relay: relay).status == 200)
        // A conflict and a rotation write and refuse with the token too.
        let other = try await harness.register(SecretKey.generate(), token: token)
        #expect(other.status == 409)
        #expect(!other.body.contains(token))
      }
      harness.recording.script(
        tokens[0], .response(APNsResponse(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))))
      let owner = SecretKey.generate()
      let (grant, handle) = try await harness.grant(owner: owner, relay: relay, token: tokens[4])
      let rotated = try await harness.post(
        "/v1/installations/endpoint",
        #"{"v":1,"installation_handle":"\#(handle)","endpoint":"\#(tokens[5])"}"#,
        key: owner)
      #expect(rotated.status == 200)
      _ = try await harness.deliver(grant, relay: relay)
      var scanned: [(String, [UInt8])] = []
      for suffix in ["", "-wal", "-shm"] {
        if let data = FileManager.default.contents(atPath: harness.storePath + suffix) {
          scanned.append((suffix, Array(data)))
        }
      }
      #expect(scanned.count >= 2)
      #expect(scanned.reduce(0) { $0 + $1.1.count } > 0)
      scanned.append(("logs", Array(harness.logs.current.joined(separator: "\n").utf8)))
      scanned.append(("metrics", Array(harness.gateway.metrics.render().utf8)))
      for token in tokens {
        let hex = Array(token.utf8)
        let raw = try #require(Hex.decode(token))
        for (name, bytes) in scanned {
          #expect(!contains(bytes, hex), "hex token in \(name)")
          #expect(!contains(bytes, Array(hex.prefix(24))), "hex token prefix in \(name)")
          #expect(!contains(bytes, raw), "raw token bytes in \(name)")
        }
      }
      // The handles, by contrast, are stored in clear: the scan would find such strings.
      let database = scanned.filter { ["", "-wal"].contains($0.0) }.flatMap(\.1)
      #expect(contains(database, Array(handles[0].utf8)))
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func reapsExpiredRows(_ backend: GatewayStoreBackend) async throws {
    try await withGatewayHarness(backend: backend) { harness in
      let relay = SecretKey.generate()
      let owner = SecretKey.generate()
      let handle = try await harness.installation(owner, token: testToken(700))
      _ = try await harness.delegate(owner, handle: handle, relay: relay.publicKeyHex, lifetime: 3600)
      #expect(try await harness.gateway.reap() == 0)
      harness.clock.advance(by: .seconds(31 * 86_400))
      // Installation, delegation, the two NIP-98 ids.
      #expect(try await harness.gateway.reap() == 4)
      #expect(try await harness.gateway.reap() == 0)
      // The token is free again for anyone.
      #expect(try await harness.register(SecretKey.generate(), token: testToken(700)).status == 201)
    }
  }

  @Test func sharesOneProviderTokenBetweenTwoProcessesOnOneFile() async throws {
    let (directory, path) = try Self.temporaryStorePath()
    defer { try? FileManager.default.removeItem(at: directory) }
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    let clock = ManualUnixClock(seconds: 1_700_000_000)
    let keyID = try APNsIdentifier("KEY1234567", field: "key_id")
    let teamID = try APNsIdentifier("TEAM123456", field: "team_id")
    let slot = StoreProviderTokenSlot.slotName(keyID: keyID, teamID: teamID)
    let replicas = try (0..<2).map { _ in
      APNsProviderTokens(
        key: key, keyID: keyID, teamID: teamID, clock: clock.clock,
        slot: StoreProviderTokenSlot(store: try SQLitePushGatewayStore(path: path), slot: slot))
    }
    let first = try await replicas[0].token()
    #expect(try await replicas[1].token() == first)
    clock.advance(by: .seconds(50 * 60))
    let renewed = try await replicas[1].token()
    #expect(renewed != first)
    #expect(renewed.issuedAt == 1_700_000_000 + 3000)
    #expect(try await replicas[0].token() == renewed)
  }

  @Test func answers503WhileTheStoreIsLocked() async throws {
    try await withGatewayHarness(busyTimeoutMilliseconds: 50) { harness in
      let relay = SecretKey.generate()
      let (grant, _) = try await harness.grant(
        owner: SecretKey.generate(), relay: relay, token: testToken(701))
      var database: OpaquePointer?
      #expect(sqlite3_open(harness.storePath, &database) == SQLITE_OK)
      defer { sqlite3_close(database) }
      #expect(sqlite3_exec(database, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK)
      let answer = try await harness.deliver(grant, relay: relay)
      #expect(answer.status == 503)
      #expect(answer.body == #"{"error":"temporarily_unavailable"}"#)
      let registration = try await harness.register(SecretKey.generate(), token: testToken(702))
      #expect(registration.status == 503)
      #expect(harness.recording.requests.isEmpty)
      #expect(sqlite3_exec(database, "COMMIT", nil, nil, nil) == SQLITE_OK)
      #expect(try await harness.deliver(grant, relay: relay).status == 200)
    }
  }
}

/// Whether `needle` occurs in `haystack`.
private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
  guard !needle.isEmpty, haystack.count >= needle.count else { return false }
  let first = needle[0]
  var index = 0
  while index <= haystack.count - needle.count {
    if haystack[index] == first, Array(haystack[index..<(index + needle.count)]) == needle { return true }
    index += 1
  }
  return false
}
