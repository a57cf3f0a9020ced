import _NostrSQLite

/// Keeps the database under its size bound: avatars least recently used first, then the oldest
/// profiles and channels.
enum CacheEviction {
  /// Profile or channel rows deleted per eviction step before the size is measured again
  /// (avatars, being large, go one at a time).
  static let stepRows = 16

  /// Evicts inside the caller's write transaction until the used pages fit `maxBytes`, then
  /// returns freed pages to the file system.
  static func enforce(_ db: CacheConnection, maxBytes: Int64) throws(CacheError) {
    guard try usedBytes(db) > maxBytes else { return }
    let limit = SQLiteValue.integer(Int64(stepRows))
    while try usedBytes(db) > maxBytes {
      let deleted = try db.run(
        "DELETE FROM avatars WHERE rowid IN (SELECT rowid FROM avatars ORDER BY used_at, rowid LIMIT 1)")
      if deleted == 0 { break }
    }
    while try usedBytes(db) > maxBytes {
      var deleted = try db.run(
        "DELETE FROM profiles WHERE rowid IN (SELECT rowid FROM profiles ORDER BY fetched_at, rowid LIMIT ?)",
        [limit])
      let oldest = try db.query(
        "SELECT account, relay, channel_id FROM channels ORDER BY fetched_at, rowid LIMIT ?", [limit]
      ) { row in [SQLiteValue.text(row.text(0) ?? ""), .text(row.text(1) ?? ""), .text(row.text(2) ?? "")] }
      for key in oldest {
        deleted += try db.run("DELETE FROM channels WHERE account = ? AND relay = ? AND channel_id = ?", key)
        deleted += try db.run(
          "DELETE FROM memberships WHERE account = ? AND relay = ? AND channel_id = ?", key)
      }
      if oldest.isEmpty {
        deleted += try db.run(
          "DELETE FROM memberships WHERE rowid IN (SELECT rowid FROM memberships ORDER BY fetched_at LIMIT ?)",
          [limit])
      }
      if deleted == 0 { break }
    }
    try db.execute("PRAGMA incremental_vacuum")
  }

  /// Bytes in pages that hold data (the file's pages minus its free list).
  static func usedBytes(_ db: CacheConnection) throws(CacheError) -> Int64 {
    let pages = try db.first("PRAGMA page_count") { row in row.integer(0) } ?? 0
    let free = try db.first("PRAGMA freelist_count") { row in row.integer(0) } ?? 0
    let size = try db.first("PRAGMA page_size") { row in row.integer(0) } ?? 4096
    return (pages - free) * size
  }
}
