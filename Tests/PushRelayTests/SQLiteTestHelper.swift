import CSQLite

/// Runs SQL on a state file from a second connection, to break or inspect it behind the store.
enum SQLiteTestHelper {
  struct Failure: Error { var message: String }

  static func execute(_ sql: String, path: String) throws {
    var handle: OpaquePointer?
    guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else { throw Failure(message: "cannot open") }
    defer { sqlite3_close(handle) }
    guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
      throw Failure(message: String(cString: sqlite3_errmsg(handle)))
    }
  }
}
