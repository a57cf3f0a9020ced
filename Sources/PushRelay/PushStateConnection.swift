import PushLease
import _NostrSQLite

/// The push state file's SQLite connection: the package's one wrapper, failing with
/// `PushRelayError.storage` (field `state` when the file cannot be opened; a constraint
/// violation's diagnostic is ``StorageDiagnostic/constraint``).
typealias PushStateConnection = SQLiteConnection<PushRelayError>

extension SQLiteConnection where Failure == PushRelayError {
  /// Opens the push state file at `path` with a busy timeout.
  convenience init(statePath path: String, busyTimeoutMilliseconds: Int32) throws(PushRelayError) {
    try self.init(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds) { failure in
      if failure.opening { return PushRelayError(code: .storage, field: "state", message: failure.message) }
      return PushRelayError(
        code: .storage, message: "SQLite \(failure.status): \(failure.message)",
        detail: failure.kind == .constraint ? .constraint : nil)
    }
  }

  /// Whether `error` is a constraint violation (`SQLITE_CONSTRAINT_*`).
  static func isConstraint(_ error: PushRelayError) -> Bool { error.storageDiagnostic == .constraint }
}

/// SQLite's side of the lease dialect seam: flags as 1/0, an event's JSON as a blob, and any
/// constraint failure of the upsert as `lease_constraint_violation` (SQLite's one writer already
/// ran step 6 before it).
extension SQLiteConnection: LeaseSQLConnection where Failure == PushRelayError {
  package var leaseStatements: LeaseStatements { .sqlite }

  package func select<T>(
    _ sql: String, _ values: [LeaseSQLValue], maxRows: Int, _ read: (SQLiteRow) throws(PushRelayError) -> T
  ) throws(PushRelayError) -> [T] {
    try query(sql, values.map(\.sqliteValue), read)
  }

  @discardableResult
  package func write(_ sql: String, _ values: [LeaseSQLValue]) throws(PushRelayError) -> Int {
    try run(sql, values.map(\.sqliteValue))
  }

  package func refusal(for failure: PushRelayError) -> LeaseRefusal.Code? {
    Self.isConstraint(failure) ? .leaseConstraintViolation : nil
  }

  package func failure(_ error: PushRelayError) -> PushRelayError { error }
}

extension LeaseSQLValue {
  /// The value as SQLite binds it: a flag as 1/0, an event's JSON as a blob.
  package var sqliteValue: SQLiteValue {
    switch self {
    case .text(let text): .text(text)
    case .integer(let integer): .integer(integer)
    case .flag(let flag): .integer(flag ? 1 : 0)
    case .json(let bytes): .blob(bytes)
    case .null: .null
    }
  }
}

extension SQLiteRow: LeaseSQLRow {
  package func string(_ column: Int) -> String? { text(Int32(column)) }
  package func int64(_ column: Int) -> Int64 { integer(Int32(column)) }
  package func flag(_ column: Int) -> Bool { integer(Int32(column)) != 0 }
  package func bytes(_ column: Int) -> [UInt8]? { blob(Int32(column)) }
}
