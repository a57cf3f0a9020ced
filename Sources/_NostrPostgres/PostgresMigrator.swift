/// The PostgreSQL side's one migrator: an ordered list of named steps recorded in a version
/// table, applied under a session advisory lock so that processes starting together on an empty
/// database do not race.
///
/// Step `n` (1-based) is recorded as version `n` in `versionTable`; each runs in its own
/// transaction with its version row. A database whose recorded version is above this code's is
/// refused (``PostgresFailure/newerSchema``) without a change. The relay's push schema and the
/// gateway's each have their own table and lock, so both can live in one database.
package struct PostgresMigrator: Sendable {
  /// One step: a name for messages and reviews, and its SQL.
  package struct Step: Sendable {
    /// A short name (`"push_lease"`).
    package let name: String
    /// The statements.
    package let sql: String

    /// A step named `name` that runs `sql`.
    package init(_ name: String, sql: String) {
      self.name = name
      self.sql = sql
    }
  }

  /// The table that records applied versions (`push_schema_version`).
  package let versionTable: String
  /// The second key of the two-key advisory lock (class 0x6e70, "np") the steps run under.
  package let lockKey: Int32
  /// The steps, in order.
  package let steps: [Step]

  /// A migrator recording `steps` in `versionTable` under advisory lock (28272, `lockKey`).
  package init(versionTable: String, lockKey: Int32, steps: [Step]) {
    self.versionTable = versionTable
    self.lockKey = lockKey
    self.steps = steps
  }

  /// The version a fully migrated database records.
  package var latestVersion: Int { steps.count }

  /// Creates the version table if missing and applies the steps the database lacks, under the
  /// lock (waited for up to 30 s, not the session's 500 ms); returns the latest version. Throws a
  /// failure with ``PostgresFailure/newerSchema`` set when the database is newer than this code.
  @discardableResult
  package func migrate(_ connection: PostgresConnection) throws(PostgresFailure) -> Int {
    try connection.execute("SET lock_timeout = '30s'; SET statement_timeout = '60s'")
    try connection.query("SELECT pg_advisory_lock(28272, \(lockKey))")
    defer { _ = try? connection.query("SELECT pg_advisory_unlock(28272, \(lockKey))") }
    try connection.execute(
      "CREATE TABLE IF NOT EXISTS \(versionTable) "
        + "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
    let current = Int(
      try connection.query("SELECT COALESCE(MAX(version), 0) FROM \(versionTable)").rows.first?.integer(0)
        ?? 0)
    guard current <= steps.count else {
      var failure = PostgresFailure.local(
        "the database's \(versionTable) is version \(current), newer than this code's \(steps.count)")
      failure.newerSchema = true
      throw failure
    }
    for version in (current + 1)..<(steps.count + 1) {
      try connection.execute("BEGIN")
      do throws(PostgresFailure) {
        try connection.execute(steps[version - 1].sql)
        try connection.query("INSERT INTO \(versionTable) (version) VALUES ($1)", [String(version)])
        try connection.execute("COMMIT")
      } catch {
        _ = try? connection.execute("ROLLBACK")
        throw error
      }
    }
    try connection.execute(
      "SET lock_timeout = \(PostgresConnection.lockTimeoutMilliseconds); "
        + "SET statement_timeout = \(PostgresConnection.statementTimeoutMilliseconds)")
    return steps.count
  }
}
