import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushLease
import PushRelay
import PushRelayPostgres
import Testing

/// A server restart (`pg_ctl restart`, on a cluster of the test's own) while two relay processes
/// run (`Docs/VendoringPushRelay.md` §PostgreSQL): both reconnect, nothing acknowledged is lost, every pending
/// wake is delivered once.
@Suite(
  .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote), .timeLimit(.minutes(2)))
struct PostgresRestartTests {
  /// Stores `event` through `process`, again while it answers `error` (its connection was lost
  /// with the server; the next call reconnects); the answers in order.
  static func storeRetrying(_ event: Event, on process: PostgresRelayProcess) async throws -> [String] {
    var answers: [String] = []
    for _ in 0..<100 {
      let answer = try await process.store(event)
      answers.append(answer)
      if answer == "stored" { break }
      try await Task.sleep(for: .milliseconds(100))
    }
    return answers
  }

  @Test func twoRelayProcessesReconnectAfterARestartAndDeliverEveryWakeOnce() async throws {
    let cluster = try await PostgresTestCluster()
    do {
      try await run(on: cluster)
    } catch {
      await cluster.stop()
      throw error
    }
    await cluster.stop()
  }

  private func run(on cluster: PostgresTestCluster) async throws {
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      let base = String(try #require(gateway.baseURL).absoluteString.trimmingSuffix("/"))
      let grant = try gateway.issueGrant(relayPubkey: Demo.relayKey.publicKeyHex, deviceToken: "d00d").grant
      let database = try PostgresDatabase(connectionString: cluster.connectionString)
      let (relay, listener, outbox) = try PostgresMultiProcessTests.relay(database)
      defer { listener.close() }
      let lease = PostgresMultiProcessTests.lease(endpoint: grant)
      #expect(try relay.ingestLease(try #require(VerifiedEvent(lease)), identity: lease.pubkey).accepted)
      let first = try await PostgresRelayProcess.start(
        connectionString: cluster.connectionString, gateway: base)
      let second = try await PostgresRelayProcess.start(
        connectionString: cluster.connectionString, gateway: base)
      for index in 0..<3 {
        let stored = try await Self.storeRetrying(
          PostgresMultiProcessTests.mention(content: "before \(index)"), on: first)
        #expect(stored == ["stored"])
      }
      #expect(await Polling.eventually(within: .seconds(20)) { gateway.deliveries().count == 3 })
      // The gateway records a delivery before the worker writes its outcome; restarting between
      // the two would leave the row `sending` until its 30 s fence. Wait for the outcomes.
      #expect(
        await Polling.eventually(within: .seconds(20)) {
          (try? outbox.wakes())?.filter { $0.state == .delivered }.count == 3
        })

      try await cluster.restart()
      // Both processes' connections were cut; each store is retried until its process reconnects.
      for index in 0..<3 {
        let stored = try await Self.storeRetrying(
          PostgresMultiProcessTests.mention(content: "after \(index)"), on: index % 2 == 0 ? second : first)
        #expect(stored.last == "stored", "\(stored)")
      }
      #expect(await Polling.eventually(within: .seconds(30)) { gateway.deliveries().count == 6 })
      let requested = gateway.requests().map(\.requestID)
      #expect(requested.count == 6 && Set(requested).count == 6)
      // The gateway records a delivery before the worker writes its outcome: wait for the rows.
      #expect(
        await Polling.eventually(within: .seconds(10)) {
          (try? outbox.wakes())?.allSatisfy { $0.state == .delivered } == true
        })
      let rows = try outbox.wakes()
      #expect(rows.count == 6)
      #expect(
        rows.allSatisfy { $0.state == .delivered }, "\(rows.map { ($0.state, $0.attempts, $0.lastStatus) })")
      #expect(Set(rows.map(\.requestID)) == Set(requested))
      #expect(
        try relay.store.currentEvents(origin: Demo.origin, pubkey: lease.pubkey).map(\.id) == [lease.id])
      #expect(await first.quit().status == 0)
      #expect(await second.quit().status == 0)
    }
  }
}
