import Foundation
import _NostrSQLite

extension EnrichmentCache {
  /// The statistics of the cache file at `path`, read without writing anything: the file is
  /// opened read-only, never created, migrated or moved aside (what an inspecting tool needs;
  /// `nostr-push cache stats` calls it).
  ///
  /// Throws `storage` (field `path`) when there is no file, `corrupt` when it is not a cache (not
  /// an SQLite database, or one without the cache's schema) and `newerSchema` for a newer one.
  public static func inspect(path: String) throws(CacheError) -> CacheStats {
    guard FileManager.default.fileExists(atPath: path) else {
      throw CacheError(code: .storage, field: "path", message: "no cache file at \(path)")
    }
    // Without a `-wal` file (no connection has the cache open) every row is in the file itself:
    // read it as immutable, so not even the `-shm` and `-wal` files of a WAL reader are created.
    // With one, the writer's files exist already and a read-only reader sees its commits.
    let hasLog = FileManager.default.fileExists(atPath: path + "-wal")
    let db = try CacheConnection(
      path: path, busyTimeoutMilliseconds: Int32(defaultBusyTimeout.wholeMilliseconds),
      mode: hasLog ? .readOnly : .immutable, failure: CacheError.sqlite)
    let version = try db.first("PRAGMA user_version") { row in row.integer(0) } ?? 0
    guard version <= CacheSchema.currentVersion else {
      throw CacheError(
        code: .newerSchema,
        message: "\(path) has schema \(version); this library reads up to \(CacheSchema.currentVersion)")
    }
    let tables = Set(
      try db.query("SELECT name FROM sqlite_master WHERE type = 'table'") { row in row.text(0) ?? "" })
    guard version > 0, CacheSchema.accountTables.allSatisfy(tables.contains) else {
      throw CacheError(code: .corrupt, message: "\(path) is an SQLite database but not an enrichment cache")
    }
    var counts: [String: Int] = [:]
    for table in CacheSchema.accountTables {
      counts[table] = try db.first("SELECT count(*) FROM \(table)") { row in Int(row.integer(0)) } ?? 0
    }
    // Claims live in their own file beside the cache (`DeliveryLedger`); a cache that never had
    // one keeps its claims in its own `deliveries` table.
    let deliveries = try claimCount(path: path + DeliveryLedger.suffix) ?? counts["deliveries"] ?? 0
    return CacheStats(
      profiles: counts["profiles"] ?? 0, channels: counts["channels"] ?? 0,
      memberships: counts["memberships"] ?? 0, avatars: counts["avatars"] ?? 0,
      deliveries: deliveries, bytes: fileSize(path) + fileSize(path + "-wal"))
  }

  /// The claims counted in the claims file at `path`, read as the cache is; nil when there is none.
  private static func claimCount(path: String) throws(CacheError) -> Int? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    let hasLog = FileManager.default.fileExists(atPath: path + "-wal")
    let db = try CacheConnection(
      path: path, busyTimeoutMilliseconds: Int32(defaultBusyTimeout.wholeMilliseconds),
      mode: hasLog ? .readOnly : .immutable, failure: CacheError.sqlite)
    let tables = Set(
      try db.query("SELECT name FROM sqlite_master WHERE type = 'table'") { row in row.text(0) ?? "" })
    guard tables.contains("deliveries") else {
      throw CacheError(code: .corrupt, field: "claims", message: "\(path) is not a claims file")
    }
    return try db.first("SELECT count(*) FROM deliveries") { row in Int(row.integer(0)) } ?? 0
  }
}
