internal import CSQLite
import EnrichmentCache
import NostrEvent
import NotificationResolver
import RelayFixture
import Testing

/// Another process holding the cache's write lock must never stop a wake: it is enriched without
/// the cache.
@Suite struct ResolverLockedCacheTests {
  /// A second connection that holds `BEGIN EXCLUSIVE` on the cache file until closed.
  final class WriteLock {
    private var db: OpaquePointer?

    init(path: String) throws {
      guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
        sqlite3_exec(db, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK
      else { throw LockFailed() }
    }

    deinit {
      sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
      sqlite3_close(db)
    }

    struct LockFailed: Error {}
  }

  @Test func resolvesWhileAnotherConnectionHoldsTheWriteLock() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let cache = try folder.cache()
    let server = try await scenario.startRelay([scenario.message("hi")] + scenario.enrichmentEvents())
    defer { Task { await server.stop() } }
    let budget: Duration = .milliseconds(500)
    let queryTimeout: Duration = .seconds(2)
    let configuration = try scenario.configuration(
      server, relayPubkey: true, budget: budget, queryTimeout: queryTimeout)
    let lock = try WriteLock(path: folder.path + "/cache.sqlite")
    let resolution = await scenario.resolve(configuration, cache: cache)
    withExtendedLifetime(lock) {}
    let notification = try #require(resolution.outcome.notification)
    #expect(notification.title == "Alice")
    #expect(notification.subtitle == "#general")
  }
}
