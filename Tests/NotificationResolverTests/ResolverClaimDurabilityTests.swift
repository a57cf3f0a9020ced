internal import CSQLite
import EnrichmentCache
import Foundation
import NostrEvent
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import Testing

/// A message is shown once even while the app's importer holds the cache's write lock, and a
/// damaged cache costs at most one repeat (hardening §2), against real cache files and a real
/// SQLite write transaction on another connection.
@Suite(.timeLimit(.minutes(2))) struct ResolverClaimDurabilityTests {
  /// How a wake in the extension opens the cache: with the resolver's 250 ms busy timeout, and
  /// without it when it cannot be opened.
  static func wakeCache(_ path: String) -> EnrichmentCache? {
    try? EnrichmentCache(path: path, busyTimeout: .milliseconds(250), clock: { RelayScenario.now })
  }

  /// Holds a real write transaction (`BEGIN EXCLUSIVE`) on `path` on a thread of its own for
  /// `duration`, as the app's importer does; returns once the lock is held.
  static func holdWriteLock(_ path: String, for duration: Duration) throws -> Task<Void, Never> {
    let lock = try ResolverLockedCacheTests.WriteLock(path: path)
    return Task.detached {
      // The lock is the scenario: it is held this long, not waited on for synchronisation.
      try? await Task.sleep(for: duration)
      lock.release()
    }
  }

  /// While another connection holds the cache's write lock for 300 ms or 2 s, two wakes show the
  /// message exactly once between them.
  @Test(arguments: [Duration.milliseconds(300), .seconds(2)])
  func showsTheMessageOnceWhileTheImporterHoldsTheWriteLock(_ held: Duration) async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let path = folder.path + "/cache.sqlite"
    let message = scenario.message("hi")
    let server = try await scenario.startRelay([message] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      // The file exists with its account registered, as after an earlier wake.
      #expect(
        try Self.wakeCache(path)?.registerAccount(scenario.account.publicKeyHex, now: RelayScenario.now)
          == true)
      let importer = try Self.holdWriteLock(path, for: held)
      let first = await scenario.resolve(configuration, cache: Self.wakeCache(path))
      let second = await scenario.resolve(configuration, cache: Self.wakeCache(path))
      await importer.value
      let shown = [first, second].filter { $0.outcome.notification?.target.eventID == message.id }
      #expect(shown.count == 1)
      let third = await scenario.resolve(configuration, cache: Self.wakeCache(path))
      #expect(third.outcome.notification == nil)
    }
  }

  /// A wake that cannot record its claim (the claims path leads nowhere: a dangling symlink)
  /// presents the fallback, never the message it could not claim.
  @Test func presentsTheFallbackWhenTheClaimCannotBeRecorded() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let path = folder.path + "/cache.sqlite"
    try FileManager.default.createSymbolicLink(
      atPath: path + ".claims", withDestinationPath: folder.path + "/missing/claims")
    let server = try await scenario.startRelay([scenario.message("hi")] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let wake = await scenario.resolve(configuration, cache: Self.wakeCache(path))
      #expect(wake.outcome == .fallback(.claimUnavailable))
      #expect(wake.plan.title == "New message")
      #expect(wake.plan.body == "Open the app to read it.")
    }
  }

  /// How a cache file gets damaged in ways its opener does not catch.
  enum Damage: String, CaseIterable, CustomTestStringConvertible {
    /// Every page after the first (the header and schema page) zeroed: the file still opens.
    case pagesZeroed
    /// `user_version` newer than the code.
    case newerUserVersion
    /// A directory where the file was.
    case directory

    var testDescription: String { rawValue }

    /// Damages the SQLite file at `path` (its WAL checkpointed into it first) and drops its
    /// `-wal` and `-shm` companions.
    func apply(to path: String) throws {
      let manager = FileManager.default
      guard manager.fileExists(atPath: path) else { return }
      switch self {
      case .pagesZeroed:
        // Everything committed into the file itself first: its WAL goes below.
        var db: OpaquePointer?
        let checkpointed =
          sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK
          && sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil) == SQLITE_OK
        sqlite3_close(db)
        guard checkpointed else { throw DamageFailed() }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // The page size, big-endian at offset 16 (1 means 65 536).
        let declared = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = declared == 1 ? 65_536 : declared
        guard bytes.count > pageSize else { throw DamageFailed() }
        for index in pageSize..<bytes.count { bytes[index] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
      case .newerUserVersion:
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
          sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA user_version = 999", nil, nil, nil)
            == SQLITE_OK
        else { throw DamageFailed() }
      case .directory:
        try manager.removeItem(atPath: path)
        try manager.createDirectory(atPath: path, withIntermediateDirectories: false)
      }
      for suffix in ["-wal", "-shm"] { try? manager.removeItem(atPath: path + suffix) }
    }

    struct DamageFailed: Error {}
  }

  /// A wake shows the message and records it; then every SQLite file of the cache is damaged.
  /// The next wakes show it at most once more: a damaged store is moved aside once and a fresh
  /// one started, so the third wake has nothing new.
  @Test(arguments: Damage.allCases)
  func aDamagedCacheRepeatsAMessageAtMostOnce(_ damage: Damage) async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let path = folder.path + "/cache.sqlite"
    let message = scenario.message("hi")
    let server = try await scenario.startRelay([message] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let first = await scenario.resolve(configuration, cache: Self.wakeCache(path))
      await first.lingering.wait()
      #expect(first.outcome.notification?.target.eventID == message.id)
      // Every SQLite file of the cache's folder (the cache, and its claims where they live apart).
      let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
      #expect(!files.isEmpty)
      for file in files { try damage.apply(to: folder.path + "/" + file) }
      var repeats = 0
      for _ in 0..<3 {
        let wake = await scenario.resolve(configuration, cache: Self.wakeCache(path))
        await wake.lingering.wait()
        if wake.outcome.notification?.target.eventID == message.id { repeats += 1 }
      }
      #expect(repeats <= 1)
    }
  }
}
