import _NostrSQLite

/// The push state file's SQLite connection: the package's one wrapper, failing with
/// `PushRelayError.storage` (field `state` when the file cannot be opened, `constraint` for a
/// constraint violation).
typealias PushStateConnection = SQLiteConnection<PushRelayError>

extension SQLiteConnection where Failure == PushRelayError {
  /// Opens the push state file at `path` with a busy timeout.
  convenience init(statePath path: String, busyTimeoutMilliseconds: Int32) throws(PushRelayError) {
    try self.init(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds) { failure in
      if failure.opening { return PushRelayError(code: .storage, field: "state", message: failure.message) }
      return PushRelayError(
        code: .storage, field: failure.kind == .constraint ? "constraint" : nil,
        message: "SQLite \(failure.status): \(failure.message)")
    }
  }

  /// Whether `error` is a constraint violation (`SQLITE_CONSTRAINT_*`).
  static func isConstraint(_ error: PushRelayError) -> Bool { error.field == "constraint" }
}
