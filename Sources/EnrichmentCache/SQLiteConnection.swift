internal import CSQLite
import Foundation

/// One open SQLite connection with a cache of prepared statements.
///
/// Not thread-safe by itself: its single owner (`EnrichmentCache`) serialises every call behind a
/// lock. Statements are prepared once per SQL text, reset after each use so that no read stays
/// open, and finalized before the connection closes.
final class SQLiteConnection {
  private let handle: OpaquePointer
  private var statements: [String: SQLiteStatement] = [:]

  /// Opens (creating when missing) the database at `path` with a busy timeout.
  init(path: String, busyTimeoutMilliseconds: Int32) throws(CacheError) {
    var opened: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let status = sqlite3_open_v2(path, &opened, flags, nil)
    guard status == SQLITE_OK, let opened else {
      let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let opened { sqlite3_close_v2(opened) }
      throw CacheError.sqlite(status, message: "cannot open \(path): \(message)")
    }
    handle = opened
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
  }

  deinit {
    statements.removeAll()
    sqlite3_close_v2(handle)
  }

  /// Runs SQL that takes no parameters and returns no rows (may hold several statements).
  func execute(_ sql: String) throws(CacheError) {
    let status = sqlite3_exec(handle, sql, nil, nil, nil)
    guard status == SQLITE_OK else { throw error(status) }
  }

  /// Runs one statement with `values` bound and returns the number of rows it changed.
  @discardableResult
  func run(_ sql: String, _ values: [SQLiteValue] = []) throws(CacheError) -> Int {
    let statement = try prepared(sql)
    defer { statement.reset() }
    try statement.bind(values)
    while try statement.step() {}
    return Int(sqlite3_changes(handle))
  }

  /// Runs a query and maps each row.
  func query<Row>(
    _ sql: String, _ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws(CacheError) -> Row
  ) throws(CacheError) -> [Row] {
    let statement = try prepared(sql)
    defer { statement.reset() }
    try statement.bind(values)
    var rows: [Row] = []
    while try statement.step() {
      rows.append(try map(SQLiteRow(statement: statement)))
    }
    return rows
  }

  /// Runs a query and maps its first row, if any.
  func first<Row>(
    _ sql: String, _ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws(CacheError) -> Row
  ) throws(CacheError) -> Row? {
    let statement = try prepared(sql)
    defer { statement.reset() }
    try statement.bind(values)
    guard try statement.step() else { return nil }
    return try map(SQLiteRow(statement: statement))
  }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
  func immediateTransaction<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T {
    try transaction(beginning: "BEGIN IMMEDIATE", body)
  }

  /// Runs `body` inside one read transaction (`BEGIN … COMMIT`), so several queries share one
  /// snapshot and one set of WAL read locks.
  func readTransaction<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T {
    try transaction(beginning: "BEGIN", body)
  }

  /// Runs `body` between `begin` and `COMMIT`, rolling back when it throws.
  private func transaction<T>(
    beginning begin: String, _ body: () throws(CacheError) -> T
  ) throws(CacheError) -> T {
    try run(begin)
    do {
      let result = try body()
      try run("COMMIT")
      return result
    } catch {
      if sqlite3_get_autocommit(handle) == 0 {
        _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
      }
      throw error
    }
  }

  private func prepared(_ sql: String) throws(CacheError) -> SQLiteStatement {
    if let statement = statements[sql] { return statement }
    var raw: OpaquePointer?
    let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
    guard status == SQLITE_OK, let raw else { throw error(status) }
    let statement = SQLiteStatement(handle: raw, connection: handle)
    statements[sql] = statement
    return statement
  }

  private func error(_ status: Int32) -> CacheError {
    CacheError.sqlite(status, message: String(cString: sqlite3_errmsg(handle)))
  }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
  case null
  case integer(Int64)
  case text(String)
  case blob([UInt8])

  /// Text, or null when `value` is nil.
  static func optionalText(_ value: String?) -> SQLiteValue {
    value.map { .text($0) } ?? .null
  }
}

/// A prepared statement; finalizes itself when released.
final class SQLiteStatement {
  fileprivate let handle: OpaquePointer
  private let connection: OpaquePointer

  fileprivate init(handle: OpaquePointer, connection: OpaquePointer) {
    self.handle = handle
    self.connection = connection
  }

  deinit { sqlite3_finalize(handle) }

  fileprivate func bind(_ values: [SQLiteValue]) throws(CacheError) {
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let status: Int32
      switch value {
      case .null:
        status = sqlite3_bind_null(handle, index)
      case .integer(let number):
        status = sqlite3_bind_int64(handle, index, number)
      case .text(let text):
        let bytes = Array(text.utf8)
        if bytes.isEmpty {
          status = sqlite3_bind_text(handle, index, "", 0, nostrpush_sqlite_transient())
        } else {
          status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
              sqlite3_bind_text(
                handle, index, chars.baseAddress, Int32(chars.count), nostrpush_sqlite_transient())
            }
          }
        }
      case .blob(let bytes):
        if bytes.isEmpty {
          status = sqlite3_bind_zeroblob(handle, index, 0)
        } else {
          status = bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), nostrpush_sqlite_transient())
          }
        }
      }
      guard status == SQLITE_OK else {
        throw CacheError.sqlite(status, message: String(cString: sqlite3_errmsg(connection)))
      }
    }
  }

  fileprivate func step() throws(CacheError) -> Bool {
    let status = sqlite3_step(handle)
    switch status {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw CacheError.sqlite(status, message: String(cString: sqlite3_errmsg(connection)))
    }
  }

  fileprivate func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }
}

/// The current row of a statement, read by column index.
struct SQLiteRow {
  fileprivate let statement: SQLiteStatement

  /// The column as an integer (0 when null).
  func integer(_ column: Int32) -> Int64 {
    sqlite3_column_int64(statement.handle, column)
  }

  /// The column as an integer, or nil when null.
  func optionalInteger(_ column: Int32) -> Int64? {
    guard sqlite3_column_type(statement.handle, column) != SQLITE_NULL else { return nil }
    return sqlite3_column_int64(statement.handle, column)
  }

  /// The column as text, or nil when null.
  func text(_ column: Int32) -> String? {
    guard sqlite3_column_type(statement.handle, column) != SQLITE_NULL,
      let pointer = sqlite3_column_text(statement.handle, column)
    else { return nil }
    let count = Int(sqlite3_column_bytes(statement.handle, column))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
  }

  /// The column as bytes, or nil when null.
  func blob(_ column: Int32) -> [UInt8]? {
    guard sqlite3_column_type(statement.handle, column) != SQLITE_NULL else { return nil }
    let count = Int(sqlite3_column_bytes(statement.handle, column))
    guard count > 0, let pointer = sqlite3_column_blob(statement.handle, column) else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }
}
