import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import PushLease
import PushRelay
import Testing

/// `nostr-push relay --database CONNINFO --origin URL` (`Docs/CommandLine.md`): several relay processes on one
/// PostgreSQL database serving one tenant origin.
@Suite(
  .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote), .timeLimit(.minutes(2)))
struct PostgresRelayCommandTests {
  static func binary() throws -> URL {
    try #require(
      PackageRoot.builtExecutable("nostr-push"), "nostr-push is not built; run `swift build` first")
  }

  static func temporaryFile(_ contents: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cli-\(UUID().uuidString)")
    try Data(contents.utf8).write(to: url)
    return url
  }

  @Test func twoRelayProcessesServeOneTenantOriginFromOneDatabase() async throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    let pushKey = try Self.temporaryFile("8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
    let accountKey = try Self.temporaryFile(
      "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
    defer {
      try? FileManager.default.removeItem(at: pushKey)
      try? FileManager.default.removeItem(at: accountKey)
    }
    let tenant = Demo.origin
    var relays: [(process: ChildProcess, http: String, webSocket: String)] = []
    for _ in 0..<2 {
      let process = try await ChildProcess.start(
        try Self.binary(),
        [
          "relay", "--data", PackageRoot.url.appendingPathComponent("Fixtures/demo").path, "--push-key-file",
          pushKey.path, "--database", database.connectionString, "--origin", tenant,
        ])
      let line = await process.firstLine()
      let listening = try? JSONReader().read(line).objectValue
      guard let http = listening?["listening"]?.stringValue,
        let webSocket = listening?["websocket"]?.stringValue
      else {
        process.send(SIGKILL)
        Issue.record("the relay did not start: \((await process.exited()).stderrText)")
        return
      }
      relays.append((process, http, webSocket))
    }
    for relay in relays {
      let response = try await LoopbackFetch.send(
        relay.http + "/", headers: ["Accept": "application/nostr+json"])
      let push = try JSONReader().read(response.body).objectValue?["push"]?.objectValue
      #expect(push?["origin"]?.stringValue == tenant)
    }
    // A lease sent to the first process lands in the one database both serve.
    let now = UnixClock.system.now()
    let lease = Demo.lease(endpoint: "grant", generation: 1, createdAt: now, d: .generate(), now: now)
    let leaseFile = try Self.temporaryFile(String(decoding: lease.jsonBytes(), as: UTF8.self))
    defer { try? FileManager.default.removeItem(at: leaseFile) }
    let published = try await ChildProcess.run(
      try Self.binary(),
      [
        "publish", "--relay", relays[0].webSocket, "--secret-key-file", accountKey.path, "--event-file",
        leaseFile.path,
      ])
    #expect(
      published.stdoutText.contains(#""accepted":true"#), "\(published.stdoutText) \(published.stderrText)")
    #expect(try database.rows("SELECT event_id FROM push_lease") == [[lease.id]])
    #expect(
      try database.rows("SELECT version FROM push_schema_version ORDER BY version") == [["1"], ["2"], ["3"]])
    for relay in relays {
      relay.process.send(SIGTERM)
      #expect(await relay.process.exited().status == 0)
    }
  }
}
