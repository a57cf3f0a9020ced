internal import CSQLite

/// One open SQLite connection with a cache of prepared statements, throwing its owner's error.
///
/// The package's one SQLite wrapper: `EnrichmentCache` opens it with `Failure == CacheError`,
/// `PushRelay` with `Failure == PushRelayError`, each passing how an `SQLiteFailure` becomes its
/// error. Not thread-safe by itself: its single owner serialises every call behind a lock.
/// Statements are prepared once per SQL text, reset after each use so that no read stays open,
/// and finalized before the connection closes.
package final class SQLiteConnection<Failure: Error> {
  private let handle: OpaquePointer
  private let failure: (SQLiteFailure) -> Failure
  private var statements: [String: SQLiteStatement] = [:]

  /// Opens (creating when missing) the database at `path` with a busy timeout; every failure
  /// after this is reported through `failure`.
  package init(
    path: String, busyTimeoutMilliseconds: Int32, failure: @escaping (SQLiteFailure) -> Failure
  ) throws(Failure) {
    var opened: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let status = sqlite3_open_v2(path, &opened, flags, nil)
    guard status == SQLITE_OK, let opened else {
      let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let opened { sqlite3_close_v2(opened) }
      throw failure(SQLiteFailure(status: status, message: "cannot open \(path): \(message)", opening: true))
    }
    handle = opened
    self.failure = failure
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
  }

  deinit {
    statements.removeAll()
    sqlite3_close_v2(handle)
  }

  /// Runs SQL that takes no parameters and returns no rows (may hold several statements).
  package func execute(_ sql: String) throws(Failure) {
    let status = sqlite3_exec(handle, sql, nil, nil, nil)
    guard status == SQLITE_OK else { throw error(status) }
  }

  /// Runs one statement with `values` bound and returns the number of rows it changed.
  @discardableResult
  package func run(_ sql: String, _ values: [SQLiteValue] = []) throws(Failure) -> Int {
    let statement = try prepared(sql, values)
    defer { statement.reset() }
    while try step(statement) {}
    return Int(sqlite3_changes(handle))
  }

  /// Runs a query and maps each row.
  package func query<Row>(
    _ sql: String, _ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws(Failure) -> Row
  ) throws(Failure) -> [Row] {
    let statement = try prepared(sql, values)
    defer { statement.reset() }
    var rows: [Row] = []
    while try step(statement) {
      rows.append(try map(SQLiteRow(handle: statement.handle)))
    }
    return rows
  }

  /// Runs a query and maps its first row, if any.
  package func first<Row>(
    _ sql: String, _ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws(Failure) -> Row
  ) throws(Failure) -> Row? {
    let statement = try prepared(sql, values)
    defer { statement.reset() }
    guard try step(statement) else { return nil }
    return try map(SQLiteRow(handle: statement.handle))
  }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
  package func immediateTransaction<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
    try transaction(beginning: "BEGIN IMMEDIATE", body)
  }

  /// Runs `body` inside one read transaction (`BEGIN … COMMIT`), so several queries share one
  /// snapshot and one set of WAL read locks.
  package func readTransaction<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
    try transaction(beginning: "BEGIN", body)
  }

  private func transaction<T>(beginning begin: String, _ body: () throws(Failure) -> T) throws(Failure) -> T {
    try execute(begin)
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      if sqlite3_get_autocommit(handle) == 0 {
        _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
      }
      throw error
    }
  }

  private func prepared(_ sql: String, _ values: [SQLiteValue]) throws(Failure) -> SQLiteStatement {
    let statement: SQLiteStatement
    if let cached = statements[sql] {
      statement = cached
    } else {
      var raw: OpaquePointer?
      let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
      guard status == SQLITE_OK, let raw else { throw error(status) }
      statement = SQLiteStatement(handle: raw)
      statements[sql] = statement
    }
    let status = statement.bind(values)
    guard status == SQLITE_OK else {
      statement.reset()
      throw error(status)
    }
    return statement
  }

  private func step(_ statement: SQLiteStatement) throws(Failure) -> Bool {
    let status = sqlite3_step(statement.handle)
    switch status {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw error(status)
    }
  }

  private func error(_ status: Int32) -> Failure {
    failure(SQLiteFailure(status: status, message: String(cString: sqlite3_errmsg(handle)), opening: false))
  }
}
