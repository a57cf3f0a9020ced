import Foundation
import _NostrSQLite

/// Opens the cache file: refuses a newer schema, switches to WAL and migrates forward.
enum CacheOpener {
  /// The WAL is truncated back to this size after a checkpoint (bytes).
  static let journalSizeLimit = 4 * 1024 * 1024
  /// Reads go through a memory map of up to this many bytes (the default size bound), so a
  /// lookup reads pages without a system call per page.
  static let mmapSize = 32 * 1024 * 1024
  /// The page cache of a connection, in KiB (SQLite's default is 2 000 KiB). Reads go through the
  /// memory map, so the page cache mostly holds the pages a write is building; past this bound a
  /// transaction's dirty pages spill to the WAL instead of growing the heap. Storing a 512 KiB
  /// avatar or a 10 000-member roster (320 KiB) otherwise keeps all of its pages in the heap
  /// besides the bytes being stored (`Docs/Performance.md`'s extension memory row).
  static let pageCacheKiB = 256

  /// Opens and prepares a connection; throws `corrupt` for a file that is not a database (or a
  /// directory at `path`, which is moved aside like one) and
  /// `newerSchema` (without changing the file) for one from a newer library.
  static func open(path: String, busyTimeoutMilliseconds: Int32) throws(CacheError) -> CacheConnection {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      throw CacheError(code: .corrupt, field: "path", message: "the cache path is a directory")
    }
    let db = try CacheConnection(cachePath: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    let version = try CacheSchema.migrator.checkKnown(db)
    if version == 0 {
      try db.execute("PRAGMA auto_vacuum = INCREMENTAL")
    }
    let mode = try db.first("PRAGMA journal_mode = WAL") { row in row.text(0) ?? "" }
    guard mode?.lowercased() == "wal" else {
      throw CacheError(code: .storage, message: "cannot switch to WAL (journal mode \(mode ?? "unknown"))")
    }
    try db.execute(
      "PRAGMA cache_size = -\(pageCacheKiB); PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = \(journalSizeLimit); PRAGMA mmap_size = \(mmapSize)"
    )
    try CacheSchema.migrator.migrate(db)
    return db
  }

  /// Moves a file that is not a database (or a directory; and its WAL and shared-memory files) to
  /// `<path>.corrupt-<now>` so that a fresh cache can start.
  static func moveAside(path: String, now: Int64) throws(CacheError) {
    let manager = FileManager.default
    var target = "\(path).corrupt-\(now)"
    var attempt = 1
    while manager.fileExists(atPath: target) {
      target = "\(path).corrupt-\(now)-\(attempt)"
      attempt += 1
    }
    do {
      try manager.moveItem(atPath: path, toPath: target)
      for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: path + suffix) {
        try manager.moveItem(atPath: path + suffix, toPath: target + suffix)
      }
    } catch {
      throw CacheError(
        code: .storage, field: "path", message: "cannot move the corrupt cache aside: \(error)")
    }
  }
}
