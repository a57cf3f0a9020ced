internal import CSQLite
import EnrichmentCache
import Foundation
import NostrEvent
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import Testing

/// Another process holding the cache's write lock must never stop a wake: it is enriched without
/// the cache's records, and its claim, in the claims file beside the cache, is recorded.
@Suite(.timeLimit(.minutes(2))) struct ResolverLockedCacheTests {
  /// A second connection that holds `BEGIN EXCLUSIVE` on the cache file until closed.
  final class WriteLock {
    private var db: OpaquePointer?

    init(path: String) throws {
      guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
        sqlite3_exec(db, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK
      else { throw LockFailed() }
    }

    deinit { release() }

    /// Ends the lock now (idempotent).
    func release() {
      guard db != nil else { return }
      sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
      sqlite3_close(db)
      db = nil
    }

    struct LockFailed: Error {}
  }

  /// The number of rows `sql` counts in the cache file, read on a connection of its own.
  static func count(_ sql: String, in path: String) -> Int {
    var db: OpaquePointer?
    defer { sqlite3_close(db) }
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return -1 }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW
    else { return -1 }
    return Int(sqlite3_column_int64(statement, 0))
  }

  /// The wake's claim waits behind another connection's write lock on the claims file until the
  /// outer deadline has passed and the lock is gone: the claim must not commit, so the message
  /// shown as a fallback is presented by the next wake instead of being lost.
  @Test(.timeLimit(.minutes(1)))
  func leavesTheMessageUnclaimedWhenTheDeadlinePassesDuringTheClaim() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let path = folder.path + "/cache.sqlite"
    let message = scenario.message("hi")
    let server = try await scenario.startRelay(
      [message], faults: [RelayFault(path: "/query", kind: 9, action: .delay(milliseconds: 400), times: 1)])
    try await server.serving {
      let configuration = try scenario.configuration(
        server, relayPubkey: true, budget: .milliseconds(100), queryTimeout: .milliseconds(900))
      let patient = try EnrichmentCache(
        path: path, busyTimeout: .milliseconds(250), clock: { RelayScenario.now })
      let claims = path + ".claims"
      let registered = "SELECT count(*) FROM accounts WHERE account = '\(scenario.account.publicKeyHex)'"
      let claimed = "SELECT count(*) FROM deliveries WHERE message_id = '\(message.id)'"
      // The claims file exists, as after any earlier wake (this claim is of another message).
      _ = try patient.claimDeliveries(
        [String(repeating: "0", count: 64)], account: scenario.account.publicKeyHex,
        relay: configuration.relay,
        now: RelayScenario.now)

      let wake = Task { await scenario.resolve(configuration, cache: patient) }
      #expect(await Polling.eventually(within: .seconds(5)) { Self.count(registered, in: path) == 1 })
      // The claim waits up to the wake's deadline (not the 250 ms busy timeout) for this lock.
      let lock = try WriteLock(path: claims)
      let first = await wake.value
      #expect(first.outcome.reason == .timeout)
      lock.release()
      // The abandoned claim gets the lock now; it must roll back instead of recording the message.
      #expect(await !Polling.eventually(within: .seconds(2)) { Self.count(claimed, in: claims) != 0 })

      // The next wake, with the generous timeouts of tests not about deadlines, presents it.
      let second = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: try folder.cache())
      #expect(second.outcome.notification?.target.eventID == message.id, "\(second.outcome)")
      #expect(Self.count(claimed, in: claims) == 1)
    }
  }

  @Test func resolvesWhileAnotherConnectionHoldsTheWriteLock() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let cache = try folder.cache()
    let server = try await scenario.startRelay([scenario.message("hi")] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let lock = try WriteLock(path: folder.path + "/cache.sqlite")
      let started = ContinuousClock.now
      let resolution = await scenario.resolve(configuration, cache: cache)
      let elapsed = ContinuousClock.now - started
      withExtendedLifetime(lock) {}
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.title == "Alice")
      #expect(notification.subtitle == "#general")
      // The breaker: the first busy answer (registration, after the 250 ms busy timeout) switches
      // the cache off for the wake, so no later claim, lookup or write waits again. Without it,
      // each of those would wait its own 250 ms.
      #expect(cache.transientFailureCount == 1)
      // The spec's promise: one busy timeout, within the 1 s slack of a whole wake.
      #expect(elapsed < .milliseconds(250) + .seconds(1))
    }
  }
}
