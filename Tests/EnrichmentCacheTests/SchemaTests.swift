internal import CSQLite
import Foundation
import Testing

@testable import EnrichmentCache

/// The first column of the first row of `sql`, read through a separate raw read-write connection
/// (read-write so that it can recover the WAL of a killed writer), or a description of the error.
func rawPragma(_ path: String, _ sql: String) -> String {
  var db: OpaquePointer?
  let opened = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil)
  defer { sqlite3_close_v2(db) }
  guard opened == SQLITE_OK else { return "open error \(opened)" }
  sqlite3_busy_timeout(db, 2000)
  var statement: OpaquePointer?
  let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
  defer { sqlite3_finalize(statement) }
  guard prepared == SQLITE_OK else {
    return "prepare error \(prepared): \(String(cString: sqlite3_errmsg(db)))"
  }
  let stepped = sqlite3_step(statement)
  guard stepped == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return "step \(stepped)" }
  return String(cString: text)
}

/// Runs SQL on a separate raw read-write connection.
func rawExecute(_ path: String, _ sql: String) -> Int32 {
  var db: OpaquePointer?
  guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
    return -1
  }
  defer { sqlite3_close_v2(db) }
  return sqlite3_exec(db, sql, nil, nil, nil)
}

@Suite struct SchemaTests {
  @Test func createsAWALFileAtTheCurrentVersion() throws {
    let folder = try TemporaryFolder()
    _ = try EnrichmentCache(path: folder.path())
    #expect(rawPragma(folder.path(), "PRAGMA user_version") == "\(CacheSchema.currentVersion)")
    #expect(rawPragma(folder.path(), "PRAGMA journal_mode") == "wal")
    #expect(rawPragma(folder.path(), "PRAGMA auto_vacuum") == "2")
  }

  @Test func keepsRecordsAcrossReopening() throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    let sender = randomHex()
    do {
      let cache = try EnrichmentCache(path: folder.path())
      _ = try cache.storeProfiles(
        [profile(sender, name: "Bob")], account: account, relay: testRelay, now: testNow)
    }
    let reopened = try EnrichmentCache(path: folder.path())
    let found = try reopened.lookupProfile(account: account, relay: testRelay, pubkey: sender, now: testNow)
    #expect(found?.value.displayName == "Bob")
  }

  /// A records file of a newer schema is refused by every records operation and left untouched;
  /// delivery claims, in their own file, still work (a wake must be able to claim what it shows).
  @Test func refusesANewerSchemaAndLeavesTheFileUntouched() throws {
    let folder = try TemporaryFolder()
    _ = try EnrichmentCache(path: folder.path())
    #expect(
      rawExecute(folder.path(), "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA user_version = 99") == SQLITE_OK)
    let before = try Data(contentsOf: URL(fileURLWithPath: folder.path()))
    let cache = try EnrichmentCache(path: folder.path())
    let error = try #require(throws: CacheError.self) {
      try cache.lookupProfile(account: randomHex(), relay: testRelay, pubkey: randomHex(), now: testNow)
    }
    #expect(error.code == .newerSchema)
    #expect(error.field == "user_version")
    #expect(throws: CacheError(code: .newerSchema, field: "user_version", message: "")) {
      try cache.addAccount(randomHex(), now: testNow)
    }
    let event = randomHex()
    #expect(
      try cache.claimDeliveries([event], account: randomHex(), relay: testRelay, now: testNow) == [event])
    let after = try Data(contentsOf: URL(fileURLWithPath: folder.path()))
    #expect(before == after)
  }

  @Test func movesAFileThatIsNotADatabaseAsideAndStartsAFreshOne() throws {
    let folder = try TemporaryFolder()
    let garbage = Data(String(repeating: "this is not sqlite ", count: 400).utf8)
    try garbage.write(to: URL(fileURLWithPath: folder.path()))
    let cache = try EnrichmentCache(path: folder.path(), clock: { 1_700_000_123 })
    let account = randomHex()
    _ = try cache.storeProfiles([profile(randomHex())], account: account, relay: testRelay, now: testNow)
    #expect(try cache.stats().profiles == 1)
    let moved = try Data(contentsOf: URL(fileURLWithPath: folder.path("cache.sqlite.corrupt-1700000123")))
    #expect(moved == garbage)
  }

  @Test func migratesAnEmptyVersionZeroFileForward() throws {
    let folder = try TemporaryFolder()
    #expect(FileManager.default.createFile(atPath: folder.path(), contents: Data()))
    _ = try EnrichmentCache(path: folder.path())
    #expect(rawPragma(folder.path(), "PRAGMA user_version") == "\(CacheSchema.currentVersion)")
    #expect(try folder.names().filter { $0.contains("corrupt") }.isEmpty)
  }

  @Test func migratesVersionOneDeliveriesAsPresentedClaims() throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    let event = randomHex()
    let versionOne = CacheSchema.migrations[0]
    #expect(
      rawExecute(
        folder.path(),
        "BEGIN; \(versionOne) INSERT INTO deliveries VALUES ('\(account)', '\(testRelay)', '\(event)', \(testNow));"
          + " PRAGMA user_version = 1; COMMIT;") == SQLITE_OK)
    let cache = try EnrichmentCache(path: folder.path())
    #expect(rawPragma(folder.path(), "PRAGMA user_version") == "\(CacheSchema.currentVersion)")
    #expect(try cache.stats().deliveries == 1)
    let later = testNow + EnrichmentCache.claimLifetime + 1
    #expect(try cache.claimDeliveries([event], account: account, relay: testRelay, now: later) == [])
  }

  @Test func reportsBusyWhenAnotherConnectionHoldsTheWriteLock() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path(), busyTimeout: .milliseconds(50))
    var holder: OpaquePointer?
    #expect(sqlite3_open_v2(folder.path(), &holder, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
    defer { sqlite3_close_v2(holder) }
    #expect(sqlite3_exec(holder, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
    let account = randomHex()
    let error = try #require(throws: CacheError.self) {
      try cache.storeProfiles([profile(randomHex())], account: account, relay: testRelay, now: testNow)
    }
    #expect(error.code == .busy)
    #expect(error.isTransient)
    // Reads still work while a writer holds the lock (WAL).
    #expect(
      try cache.lookupProfile(account: account, relay: testRelay, pubkey: randomHex(), now: testNow) == nil)
    #expect(sqlite3_exec(holder, "COMMIT", nil, nil, nil) == SQLITE_OK)
    let outcome = try cache.storeProfiles(
      [profile(randomHex())], account: account, relay: testRelay, now: testNow)
    #expect(outcome == [.stored])
  }
}
