import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import PushRelayPostgres
import Testing

/// `Docs/Robustness.md`: two relay processes serving one tenant origin from one PostgreSQL database
/// (`nostr-push relay --database … --origin …`) share one replay set, so a NIP-98 header used
/// at one is refused at the other.
@Suite(
  .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote), .timeLimit(.minutes(2)))
struct PostgresReplayTests {
  /// The database store keeps the in-memory set's promise: an id stays until its expiry, and a
  /// store full of live ids refuses new ones rather than forget one; two stores on one database
  /// (two processes' connections) see each other's ids.
  @Test func burnsIDsUntilTheirExpiryAndRefusesNewOnesWhenFull() throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    let opened = try database.open()
    let one = try PostgresReplayStore(database: opened, capacity: 2)
    let other = try PostgresReplayStore(database: opened, capacity: 2)
    let (a, b, c) = (
      String(repeating: "a", count: 64), String(repeating: "b", count: 64), String(repeating: "c", count: 64)
    )
    func code(_ store: PostgresReplayStore, _ id: String, _ expiresAt: Int64, _ now: Int64)
      -> ErrorCode<NIP98ErrorDomain>?
    {
      do {
        try store.burn(id, expiresAt: expiresAt, now: now)
        return nil
      } catch {
        return error.code
      }
    }
    #expect(code(one, a, 100, 0) == nil)
    #expect(code(other, a, 100, 1) == .replayed)
    #expect(code(other, b, 50, 1) == nil)
    #expect(code(one, c, 100, 2) == .unavailable)
    #expect(code(one, b, 100, 50) == .replayed)
    #expect(code(other, c, 110, 51) == nil)
    #expect(code(one, a, 100, 52) == .replayed)
    #expect(code(one, b, 120, 101) == nil)
    #expect(try database.rows("SELECT id FROM push_nip98_replay ORDER BY id") == [[b], [c]])
  }

  @Test func aHeaderUsedAtOneReplicaIsRefusedAtTheOther() async throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    let pushKey = try PostgresRelayCommandTests.temporaryFile(
      "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
    defer { try? FileManager.default.removeItem(at: pushKey) }
    let tenant = Demo.origin
    var relays: [(process: ChildProcess, http: String)] = []
    defer { for relay in relays { relay.process.send(SIGKILL) } }
    for _ in 0..<2 {
      let process = try await ChildProcess.start(
        try PostgresRelayCommandTests.binary(),
        [
          "relay", "--data", PackageRoot.url.appendingPathComponent("Fixtures/demo").path, "--push-key-file",
          pushKey.path, "--database", database.connectionString, "--origin", tenant,
        ])
      let line = await process.firstLine()
      guard let http = (try? JSONReader().read(line).objectValue)?["listening"]?.stringValue else {
        process.send(SIGKILL)
        Issue.record("the relay did not start: \((await process.exited()).stderrText)")
        return
      }
      relays.append((process, http))
    }
    // Clients reach either replica through the tenant's one name, so the header names it.
    let base = "http" + tenant.dropFirst(tenant.hasPrefix("wss") ? "wss".count : "ws".count)
    let body = Array(#"[{"kinds":[1],"limit":1}]"#.utf8)
    let header = try NIP98.authorizationHeader(
      url: base + "/query", method: "POST", body: body, key: Demo.account, now: UnixClock.system.now())
    let first = try await LoopbackFetch.send(
      relays[0].http + "/query", method: "POST", headers: ["Authorization": header], body: body)
    #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
    let replayed = try await LoopbackFetch.send(
      relays[1].http + "/query", method: "POST", headers: ["Authorization": header], body: body)
    #expect(replayed.status == 401, "\(String(decoding: replayed.body, as: UTF8.self))")
    #expect(String(decoding: replayed.body, as: UTF8.self).contains("replayed"))
    let fresh = try NIP98.authorizationHeader(
      url: base + "/query", method: "POST", body: body, key: Demo.account, now: UnixClock.system.now())
    let other = try await LoopbackFetch.send(
      relays[1].http + "/query", method: "POST", headers: ["Authorization": fresh], body: body)
    #expect(other.status == 200, "\(String(decoding: other.body, as: UTF8.self))")
    for relay in relays {
      relay.process.send(SIGTERM)
      #expect(await relay.process.exited().status == 0)
    }
    relays = []
  }
}
