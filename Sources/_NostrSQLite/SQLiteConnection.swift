internal import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

  /// The permission bits of a database this wrapper creates (owner read and write, whatever the
  /// umask): its `-wal`, `-shm` and journal files take the same from SQLite.
  package static var createdFileMode: mode_t { 0o600 }

  /// Opens (creating when missing) the database at `path` with a busy timeout; every failure
  /// after this is reported through `failure`. `mode` ``SQLiteOpenMode/readOnly`` or
  /// ``SQLiteOpenMode/immutable`` opens an existing file for reading only.
  ///
  /// In `readWrite` mode a missing file is created first with mode 0600 (`O_EXCL | O_NOFOLLOW`),
  /// so the database and the `-wal`/`-shm` files SQLite makes beside it are readable by their
  /// owner alone; an existing file keeps the mode its owner gave it. The read-only modes create
  /// nothing.
  package init(
    path: String, busyTimeoutMilliseconds: Int32, mode: SQLiteOpenMode = .readWrite,
    failure: @escaping (SQLiteFailure) -> Failure
  ) throws(Failure) {
    if mode == .readWrite { Self.createOwnerOnly(path) }
    var opened: OpaquePointer?
    let status: Int32
    switch mode {
    case .readWrite:
      status = sqlite3_open_v2(
        path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
    case .readOnly:
      status = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
    case .immutable:
      status = sqlite3_open_v2(
        SQLiteOpenMode.immutableURI(path), &opened,
        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
        nil)
    }
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

  /// Sets how long a statement waits for another connection's lock before failing busy.
  package func setBusyTimeout(milliseconds: Int32) {
    sqlite3_busy_timeout(handle, milliseconds)
  }

  deinit {
    statements.removeAll()
    sqlite3_close_v2(handle)
  }

  /// Creates `path` empty with `createdFileMode` unless it exists (or names an in-memory or URI
  /// database); any failure is left for SQLite's open to report.
  private static func createOwnerOnly(_ path: String) {
    guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, createdFileMode)
    if descriptor >= 0 { close(descriptor) }
  }

  /// Whether a transaction is open (SQLite ends one by itself on some errors, such as a full disk).
  package var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

  /// Runs SQL that takes no parameters and returns no rows (may hold several statements).
  package func execute(_ sql: String) throws(Failure) {
    let status = sqlite3_exec(handle, sql, nil, nil, nil)
    guard status == SQLITE_OK else { throw error(status) }
  }

  /// Runs one statement with `values` bound and returns the number of rows it changed.
  @discardableResult
  package func run(_ sql: String, _ values: [SQLiteValue] = []) throws(Failure) -> Int {
    try bound(sql, values) { statement throws(Failure) in
      while try step(statement) {}
      return Int(sqlite3_changes(handle))
    }
  }

  /// Runs a query and maps each row.
  package func query<Row>(
    _ sql: String, _ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws(Failure) -> Row
  ) throws(Failure) -> [Row] {
    try bound(sql, values) { statement throws(Failure) in
      var rows: [Row] = []
      while try step(statement) {
        rows.append(try map(SQLiteRow(handle: statement.handle)))
      }
      return rows
    }
  }

  /// Runs a query and maps its first row, if any.
  package func first<Row>(
    _ sql: String, _ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws(Failure) -> Row
  ) throws(Failure) -> Row? {
    try bound(sql, values) { statement throws(Failure) in
      guard try step(statement) else { return nil }
      return try map(SQLiteRow(handle: statement.handle))
    }
  }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
  package func immediateTransaction<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
    try transaction(beginning: "BEGIN IMMEDIATE", body)
  }

  /// Runs `body` inside `BEGIN IMMEDIATE`, committing when `keep` accepts its result and rolling
  /// back when it does not or when `body` throws: for a store whose refusal is an answer, not an
  /// error.
  package func immediateTransaction<T>(keeping keep: (T) -> Bool, _ body: () throws(Failure) -> T)
    throws(Failure) -> T
  {
    try execute("BEGIN IMMEDIATE")
    let result: T
    do {
      result = try body()
    } catch {
      if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
      throw error
    }
    guard keep(result) else {
      try execute("ROLLBACK")
      return result
    }
    do {
      try execute("COMMIT")
    } catch {
      if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
      throw error
    }
    return result
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

  /// Runs `body` on the prepared statement of `sql` with `values` bound, then resets it.
  ///
  /// Blobs are bound in place (`SQLITE_STATIC`), not copied: a 512 KiB avatar would otherwise be
  /// held twice while it is stored (`Docs/Performance.md`'s extension memory row). Their bytes are
  /// reached through nested `withUnsafeBytes` calls that enclose the whole use of the statement,
  /// and the bindings are cleared before those calls return, so SQLite never keeps a pointer past
  /// the bytes' scope.
  private func bound<T>(
    _ sql: String, _ values: [SQLiteValue], _ body: (SQLiteStatement) throws(Failure) -> T
  ) throws(Failure) -> T {
    let statement = try prepared(sql)
    return try Self.withBlobBytes(values, from: 0, [:]) { blobs throws(Failure) in
      defer { statement.reset() }
      let status = statement.bind(values, blobs: blobs)
      guard status == SQLITE_OK else { throw error(status) }
      return try body(statement)
    }
  }

  /// Calls `body` with the bytes of every non-empty blob in `values` from `index` on, by index.
  private static func withBlobBytes<T>(
    _ values: [SQLiteValue], from index: Int, _ blobs: [Int: UnsafeRawBufferPointer],
    _ body: ([Int: UnsafeRawBufferPointer]) throws(Failure) -> T
  ) throws(Failure) -> T {
    guard
      let next = values[index...].firstIndex(where: { value in
        if case .blob(let bytes) = value { !bytes.isEmpty } else { false }
      }), case .blob(let bytes) = values[next]
    else { return try body(blobs) }
    let result = bytes.withUnsafeBytes { raw in
      var blobs = blobs
      blobs[next] = raw
      return Result { () throws(Failure) in try withBlobBytes(values, from: next + 1, blobs, body) }
    }
    return try result.get()
  }

  private func prepared(_ sql: String) throws(Failure) -> SQLiteStatement {
    if let cached = statements[sql] { return cached }
    var raw: OpaquePointer?
    let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
    guard status == SQLITE_OK, let raw else { throw error(status) }
    let statement = SQLiteStatement(handle: raw)
    statements[sql] = statement
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
