import CLibPQ
import Foundation

/// One libpq connection: the only code that calls libpq's query functions.
///
/// Not thread-safe (libpq connections are not for two threads at once): each store, outbox and
/// listener owns one and uses it under its own lock. Every statement with values is a prepared
/// statement run with text parameters (`PQprepare` once per connection, then `PQexecPrepared`);
/// no value is ever written into SQL text. A lost connection is dropped when a call notices it and
/// reopened by the next call (or the next transaction attempt), its statements prepared again.
/// Every session runs with `statement_timeout` 1500 ms and `lock_timeout` 500 ms. Results are
/// bounded: a statement answers at most the rows its caller allows, a field at most 4 MiB.
package final class PostgresConnection {
  /// The server-side bound of one statement (1500 ms).
  package static let statementTimeoutMilliseconds = 1500
  /// How long a statement waits for a lock, advisory locks included, before `55P03` (500 ms).
  package static let lockTimeoutMilliseconds = 500
  /// How long a connection attempt may take (libpq's `connect_timeout`, seconds; a connection
  /// string's own value wins).
  package static let connectTimeoutSeconds = 5
  /// The longest field read (4 MiB): lease events are far smaller.
  package static let maxFieldBytes = 4 << 20
  /// How often a transaction is run again after a lock timeout, deadlock, serialization failure or
  /// lost connection.
  package static let maxRetries = 3

  private let connectionString: String
  private var handle: OpaquePointer?
  private var prepared: [String: String] = [:]

  /// Connects with `connectionString` (`postgresql://…` or `host=… dbname=…`).
  package init(connectionString: String) throws(PostgresFailure) {
    self.connectionString = connectionString
    try connect()
  }

  deinit { close() }

  /// Whether the connection is up.
  package var isConnected: Bool {
    guard let handle else { return false }
    return PQstatus(handle) == CONNECTION_OK
  }

  /// The libpq handle, for the listener's socket and notifications; reconnects first if needed.
  package func connectedHandle() throws(PostgresFailure) -> OpaquePointer {
    try ensureConnected()
    guard let handle else { throw PostgresFailure.local("not connected") }
    return handle
  }

  /// The libpq handle while connected, without reconnecting.
  package var currentHandle: OpaquePointer? { isConnected ? handle : nil }

  /// Reconnects when the connection is gone.
  package func ensureConnected() throws(PostgresFailure) {
    if !isConnected { try connect() }
  }

  /// Drops the connection; the next call reconnects.
  package func close() {
    if let handle { PQfinish(handle) }
    handle = nil
    prepared = [:]
  }

  private func connect() throws(PostgresFailure) {
    close()
    // Both arrays end with a null pointer, as libpq requires.
    let keywords: [String?] = ["connect_timeout", "dbname", nil]
    let values: [String?] = [String(Self.connectTimeoutSeconds), connectionString, nil]
    let opened: OpaquePointer? = withCStrings(keywords) { keywordPointers in
      withCStrings(values) { valuePointers in
        PQconnectdbParams(keywordPointers, valuePointers, 1)
      }
    }
    guard let opened else { throw PostgresFailure.local("libpq could not allocate a connection") }
    guard PQstatus(opened) == CONNECTION_OK else {
      let message = String(cString: PQerrorMessage(opened)).trimmingCharacters(in: .whitespacesAndNewlines)
      PQfinish(opened)
      throw PostgresFailure(sqlState: nil, constraint: nil, message: message, connectionLost: true)
    }
    handle = opened
    try execute(
      "SET statement_timeout = \(Self.statementTimeoutMilliseconds); "
        + "SET lock_timeout = \(Self.lockTimeoutMilliseconds); SET application_name = 'nostr-push'")
  }

  /// Runs SQL without parameters (a transaction statement, `SET`, `LISTEN`, a migration).
  package func execute(_ sql: String) throws(PostgresFailure) {
    guard let handle else { throw lost("not connected") }
    let result = PQexec(handle, sql)
    PQclear(try check(result))
  }

  /// Runs `sql` with text `parameters` (nil is NULL) as a prepared statement; reads at most
  /// `maxRows` rows (more is a failure, never a silent cut).
  @discardableResult
  package func query(_ sql: String, _ parameters: [String?] = [], maxRows: Int = 10_000)
    throws(PostgresFailure)
    -> PostgresResult
  {
    guard let handle else { throw lost("not connected") }
    let name = try statementName(for: sql, on: handle)
    let result = withCStrings(parameters) { pointers in
      PQexecPrepared(handle, name, Int32(parameters.count), pointers, nil, nil, 0)
    }
    let checked = try check(result)
    defer { PQclear(checked) }
    return try read(checked, maxRows: maxRows)
  }

  /// Runs `body` in a transaction and commits, or rolls back when it says so; a lock timeout,
  /// deadlock, serialization failure or lost connection runs it again (at most three more times)
  /// before the failure is thrown.
  ///
  /// A commit whose answer was lost with the connection may have applied: every body the stores
  /// run is idempotent (an accept is then a duplicate, a recorded event enqueues nothing).
  package func transaction<T>(_ body: () throws(PostgresFailure) -> (value: T, commit: Bool))
    throws(PostgresFailure)
    -> T
  {
    var retries = 0
    while true {
      do {
        try ensureConnected()
        try execute("BEGIN")
        let (value, commit) = try body()
        try execute(commit ? "COMMIT" : "ROLLBACK")
        return value
      } catch {
        rollbackQuietly()
        retries += 1
        guard error.isRetryable || error.connectionLost, retries <= Self.maxRetries else { throw error }
      }
    }
  }

  /// Runs a read outside a transaction, once more on a fresh connection when the first attempt
  /// found the connection lost (a restarted server ends every session; a read is safe to repeat).
  package func read<T>(_ body: () throws(PostgresFailure) -> T) throws(PostgresFailure) -> T {
    do {
      try ensureConnected()
      return try body()
    } catch {
      guard error.connectionLost else { throw error }
      try ensureConnected()
      return try body()
    }
  }

  private func rollbackQuietly() {
    guard let handle, PQstatus(handle) == CONNECTION_OK else { return }
    PQclear(PQexec(handle, "ROLLBACK"))
  }

  private func statementName(for sql: String, on handle: OpaquePointer) throws(PostgresFailure) -> String {
    if let name = prepared[sql] { return name }
    let name = "nostrpush_\(prepared.count + 1)"
    PQclear(try check(PQprepare(handle, name, sql, 0, nil)))
    prepared[sql] = name
    return name
  }

  /// The result if it succeeded; otherwise the failure (freeing the result), dropping a lost
  /// connection.
  private func check(_ result: OpaquePointer?) throws(PostgresFailure) -> OpaquePointer {
    if let result {
      let status = PQresultStatus(result)
      if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return result }
    }
    var failure = PostgresFailure.local(
      handle.map { String(cString: PQerrorMessage($0)) } ?? "not connected")
    if let result {
      failure.sqlState = field(result, nostrpush_pg_diag_sqlstate())
      failure.constraint = field(result, nostrpush_pg_diag_constraint())
      if let message = field(result, nostrpush_pg_diag_message()) { failure.message = message }
      PQclear(result)
    }
    failure.message = failure.message.trimmingCharacters(in: .whitespacesAndNewlines)
    // Class 08 (connection exception), 57P01–57P03 (terminated by the administrator, crash
    // shutdown, cannot connect now), or a handle libpq marked bad.
    let state = failure.sqlState ?? ""
    if !isConnected || state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) {
      failure.connectionLost = true
      close()
    }
    throw failure
  }

  private func field(_ result: OpaquePointer, _ code: Int32) -> String? {
    guard let value = PQresultErrorField(result, code) else { return nil }
    return String(cString: value)
  }

  private func lost(_ message: String) -> PostgresFailure {
    PostgresFailure(sqlState: nil, constraint: nil, message: message, connectionLost: true)
  }

  private func read(_ result: OpaquePointer, maxRows: Int) throws(PostgresFailure) -> PostgresResult {
    let rowCount = Int(PQntuples(result))
    let columnCount = Int(PQnfields(result))
    guard rowCount <= maxRows else {
      throw PostgresFailure.local("a statement answered \(rowCount) rows, more than its bound of \(maxRows)")
    }
    var rows: [PostgresRow] = []
    rows.reserveCapacity(rowCount)
    for row in 0..<Int32(rowCount) {
      var values: [String?] = []
      values.reserveCapacity(columnCount)
      for column in 0..<Int32(columnCount) {
        if PQgetisnull(result, row, column) != 0 {
          values.append(nil)
          continue
        }
        let length = Int(PQgetlength(result, row, column))
        guard length <= Self.maxFieldBytes, let bytes = PQgetvalue(result, row, column) else {
          throw PostgresFailure.local("a field of \(length) bytes, more than \(Self.maxFieldBytes)")
        }
        let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
        values.append(String(decoding: buffer, as: UTF8.self))
      }
      rows.append(PostgresRow(values: values))
    }
    let changed = Int(String(cString: PQcmdTuples(result))) ?? 0
    return PostgresResult(rows: rows, changed: changed)
  }
}

/// Calls `body` with C strings of `strings` (nil stays a null pointer), valid during the call.
private func withCStrings<T>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
  let copies = strings.map { $0.map { strdup($0) } ?? nil }
  defer { for copy in copies { free(copy) } }
  return body(copies.map { $0.map { UnsafePointer($0) } })
}
