internal import CSQLite
import Foundation
import Testing

@testable import EnrichmentCache

/// Delivery claims in their own file beside the cache (hardening §2): never behind the records
/// file's write lock, waiting for their own lock as long as the caller allows, created 0600, and
/// a damaged file — records or claims — moved aside once so the operation still succeeds.
@Suite struct ClaimsFileTests {
  /// Another connection holding a write transaction on `path` until `release()`.
  final class Holder {
    private var db: OpaquePointer?

    init(_ path: String) throws {
      guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
        sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK
      else { throw HolderFailed() }
    }

    deinit { release() }

    func release() {
      guard db != nil else { return }
      sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
      sqlite3_close_v2(db)
      db = nil
    }

    struct HolderFailed: Error {}
  }

  @Test func claimsWhileAnotherConnectionHoldsTheRecordsWriteLock() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path(), busyTimeout: .milliseconds(50))
    let account = randomHex()
    try cache.addAccount(account, now: testNow)
    let holder = try Holder(folder.path())
    let event = randomHex()
    #expect(try cache.claimDeliveries([event], account: account, relay: testRelay, now: testNow) == [event])
    #expect(try cache.markPresented([event], now: testNow) == 1)
    // The records file is still locked: a records write is busy, the claim was not.
    #expect(throws: CacheError(code: .busy, message: "")) { try cache.addAccount(randomHex(), now: testNow) }
    holder.release()
  }

  @Test func createsTheClaimsFileBesideTheCacheWithMode0600() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path())
    #expect(try cache.stats().deliveries == 0)
    #expect(try !folder.names().contains("cache.sqlite.claims"))
    _ = try cache.claimDeliveries([randomHex()], account: randomHex(), relay: testRelay, now: testNow)
    let attributes = try FileManager.default.attributesOfItem(atPath: folder.path("cache.sqlite.claims"))
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(try cache.stats().deliveries == 1)
  }

  /// A claim given a longer wait than the busy timeout outlasts another writer of the claims file.
  @Test func aClaimWaitsForTheClaimsLockAsLongAsItIsAllowed() async throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path(), busyTimeout: .milliseconds(50))
    let account = randomHex()
    _ = try cache.claimDeliveries([randomHex()], account: account, relay: testRelay, now: testNow)
    let holder = try Holder(folder.path("cache.sqlite.claims"))
    #expect(throws: CacheError(code: .busy, message: "")) {
      try cache.claimDeliveries([randomHex()], account: account, relay: testRelay, now: testNow)
    }
    let releasing = Task.detached {
      // The other writer's transaction lasts this long: the scenario, not a synchronisation.
      try? await Task.sleep(for: .milliseconds(300))
      holder.release()
    }
    let event = randomHex()
    #expect(
      try cache.claimDeliveries(
        [event], account: account, relay: testRelay, now: testNow, waitMilliseconds: 10_000)
        == [event])
    await releasing.value
  }

  /// A records file whose pages are damaged after it opened: the operation that meets the damage
  /// moves the file aside and succeeds on a fresh one.
  @Test func movesADamagedRecordsFileAsideFromAnyOperation() throws {
    let folder = try TemporaryFolder()
    do {
      let cache = try EnrichmentCache(path: folder.path())
      _ = try cache.storeProfiles(
        [profile(randomHex())], account: randomHex(), relay: testRelay, now: testNow)
    }
    try Self.zeroPagesAfterTheFirst(folder.path())
    let cache = try EnrichmentCache(path: folder.path(), clock: { 1_700_000_321 })
    let sender = randomHex()
    let account = randomHex()
    _ = try cache.storeProfiles(
      [profile(sender, name: "Bob")], account: account, relay: testRelay, now: testNow)
    #expect(
      try cache.lookupProfile(account: account, relay: testRelay, pubkey: sender, now: testNow)?.value
        .displayName
        == "Bob")
    #expect(try folder.names().contains("cache.sqlite.corrupt-1700000321"))
  }

  /// A damaged claims file is moved aside once and the claim recorded in a fresh one.
  @Test func movesADamagedClaimsFileAsideAndClaimsInAFreshOne() throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    do {
      let cache = try EnrichmentCache(path: folder.path())
      for _ in 0..<50 {
        _ = try cache.claimDeliveries([randomHex()], account: account, relay: testRelay, now: testNow)
      }
    }
    try Self.zeroPagesAfterTheFirst(folder.path("cache.sqlite.claims"))
    let cache = try EnrichmentCache(path: folder.path(), clock: { 1_700_000_654 })
    let event = randomHex()
    #expect(try cache.claimDeliveries([event], account: account, relay: testRelay, now: testNow) == [event])
    #expect(try cache.stats().deliveries == 1)
    #expect(try folder.names().contains("cache.sqlite.claims.corrupt-1700000654"))
  }

  /// Another process moved the damaged file aside and started a fresh one: a cache opened before
  /// follows the path to the fresh file instead of writing on where nobody reads.
  @Test func followsAFileAnotherProcessMovedAside() throws {
    let folder = try TemporaryFolder()
    let early = try EnrichmentCache(path: folder.path())
    let account = randomHex()
    _ = try early.claimDeliveries([randomHex()], account: account, relay: testRelay, now: testNow)
    for name in ["cache.sqlite", "cache.sqlite.claims"] {
      for suffix in ["", "-wal", "-shm"]
      where FileManager.default.fileExists(atPath: folder.path(name + suffix)) {
        try FileManager.default.moveItem(
          atPath: folder.path(name + suffix), toPath: folder.path(name + ".old" + suffix))
      }
    }
    let late = try EnrichmentCache(path: folder.path())
    let sender = randomHex()
    _ = try early.storeProfiles(
      [profile(sender, name: "Bob")], account: account, relay: testRelay, now: testNow)
    #expect(
      try late.lookupProfile(account: account, relay: testRelay, pubkey: sender, now: testNow)?.value
        .displayName
        == "Bob")
    let event = randomHex()
    #expect(try early.claimDeliveries([event], account: account, relay: testRelay, now: testNow) == [event])
    #expect(try late.claimDeliveries([event], account: account, relay: testRelay, now: testNow) == [])
  }

  /// Zeroes every page of the SQLite file at `path` after the first (its WAL checkpointed first
  /// and then removed), so it still opens and fails on the first read of a table.
  static func zeroPagesAfterTheFirst(_ path: String) throws {
    var db: OpaquePointer?
    #expect(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
    #expect(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil) == SQLITE_OK)
    sqlite3_close_v2(db)
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let declared = Int(bytes[16]) << 8 | Int(bytes[17])
    let pageSize = declared == 1 ? 65_536 : declared
    try #require(bytes.count > pageSize)
    for index in pageSize..<bytes.count { bytes[index] = 0 }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
  }
}
