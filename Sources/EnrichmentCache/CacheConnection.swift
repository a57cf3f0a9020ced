import _NostrSQLite

/// The cache file's SQLite connection: the package's one wrapper, failing with `CacheError`
/// (`busy`, `locked`, `corrupt`, else `storage`, with the SQLite result code as `sqliteCode`).
typealias CacheConnection = SQLiteConnection<CacheError>

extension SQLiteConnection where Failure == CacheError {
  /// Opens the cache file at `path` with a busy timeout.
  convenience init(cachePath path: String, busyTimeoutMilliseconds: Int32) throws(CacheError) {
    try self.init(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, failure: CacheError.sqlite)
  }
}
