internal import CSQLite
import Foundation

/// The one SQLite connection of a push state file, with prepared statements cached per SQL text.
///
/// Not thread-safe by itself: its owner (`PushStateDatabase`) runs every call under one lock.
/// It is the smallest wrapper `PushRelay` needs (open, exec, run, query, one `BEGIN IMMEDIATE`
/// helper); `EnrichmentCache.SQLiteConnection` is the same idea behind `CacheError`, and the two
/// could share one owner below both.
final class PushSQLiteConnection {
  private let handle: OpaquePointer
  private var statements: [String: OpaquePointer] = [:]

  /// Opens (creating when missing) the database at `path` in WAL mode with a busy timeout.
  init(path: String, busyTimeoutMilliseconds: Int32) throws(PushRelayError) {
    var opened: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let status = sqlite3_open_v2(path, &opened, flags, nil)
    guard status == SQLITE_OK, let opened else {
      let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      if let opened { sqlite3_close_v2(opened) }
      throw PushRelayError(.storage, "cannot open \(path): \(message)", field: "state")
    }
    handle = opened
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  /// Runs SQL without parameters or rows (may hold several statements).
  func execute(_ sql: String) throws(PushRelayError) {
    let status = sqlite3_exec(handle, sql, nil, nil, nil)
    guard status == SQLITE_OK else { throw failure(status) }
  }

  /// Runs one statement with `values` bound; returns the rows it changed.
  @discardableResult
  func run(_ sql: String, _ values: [SQLValue] = []) throws(PushRelayError) -> Int {
    let statement = try prepared(sql, values)
    defer { reset(statement) }
    while try step(statement) {}
    return Int(sqlite3_changes(handle))
  }

  /// Runs a query and maps each row.
  func query<Row>(_ sql: String, _ values: [SQLValue] = [], _ map: (SQLRow) -> Row) throws(PushRelayError)
    -> [Row]
  {
    let statement = try prepared(sql, values)
    defer { reset(statement) }
    var rows: [Row] = []
    while try step(statement) { rows.append(map(SQLRow(statement: statement))) }
    return rows
  }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; any throw rolls everything back.
  func immediateTransaction<T>(_ body: () throws(PushRelayError) -> T) throws(PushRelayError) -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
      throw error
    }
  }

  /// Whether the last failure was a constraint violation (`SQLITE_CONSTRAINT_*`).
  static func isConstraint(_ error: PushRelayError) -> Bool {
    error.field == "constraint"
  }

  private func prepared(_ sql: String, _ values: [SQLValue]) throws(PushRelayError) -> OpaquePointer {
    let statement: OpaquePointer
    if let cached = statements[sql] {
      statement = cached
    } else {
      var raw: OpaquePointer?
      let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
      guard status == SQLITE_OK, let raw else { throw failure(status) }
      statements[sql] = raw
      statement = raw
    }
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let status: Int32
      switch value {
      case .null:
        status = sqlite3_bind_null(statement, index)
      case .integer(let number):
        status = sqlite3_bind_int64(statement, index, number)
      case .text(let text):
        status = text.utf8CString.withUnsafeBufferPointer { chars in
          sqlite3_bind_text(
            statement, index, chars.baseAddress, Int32(chars.count - 1), nostrpush_sqlite_transient())
        }
      case .blob(let bytes):
        status = bytes.withUnsafeBytes { raw in
          sqlite3_bind_blob(
            statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count),
            nostrpush_sqlite_transient())
        }
      }
      guard status == SQLITE_OK else {
        reset(statement)
        throw failure(status)
      }
    }
    return statement
  }

  private func step(_ statement: OpaquePointer) throws(PushRelayError) -> Bool {
    let status = sqlite3_step(statement)
    switch status {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw failure(status)
    }
  }

  private func reset(_ statement: OpaquePointer) {
    sqlite3_reset(statement)
    sqlite3_clear_bindings(statement)
  }

  private func failure(_ status: Int32) -> PushRelayError {
    let message = String(cString: sqlite3_errmsg(handle))
    let isConstraint = status & 0xFF == SQLITE_CONSTRAINT
    return PushRelayError(.storage, "SQLite \(status): \(message)", field: isConstraint ? "constraint" : nil)
  }
}

/// A value bound to a statement parameter.
enum SQLValue {
  case null
  case integer(Int64)
  case text(String)
  case blob([UInt8])

  /// Text, or null when nil.
  static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
  /// A Boolean as 0 or 1.
  static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
}

/// The current row of a statement, read by column index.
struct SQLRow {
  fileprivate let statement: OpaquePointer

  /// The column as an integer (0 when null).
  func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

  /// The column as text, or nil when null.
  func text(_ column: Int32) -> String? {
    guard sqlite3_column_type(statement, column) != SQLITE_NULL,
      let pointer = sqlite3_column_text(statement, column)
    else { return nil }
    let count = Int(sqlite3_column_bytes(statement, column))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
  }

  /// The column as bytes, or nil when null.
  func blob(_ column: Int32) -> [UInt8]? {
    guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
    let count = Int(sqlite3_column_bytes(statement, column))
    guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }
}
