/// One forward-only schema step: a name for messages and reviews, and what it does.
///
/// A step is applied once, inside the migrator's transaction; append new steps, never edit one
/// that has shipped.
package struct SQLiteMigration<Failure: Error>: Sendable {
  /// A short name for the step (`"leases"`, `"dm wake bound"`), used in error messages.
  package let name: String
  let apply: @Sendable (SQLiteConnection<Failure>) throws(Failure) -> Void

  /// A step that runs `sql` (one or more statements).
  package init(_ name: String, sql: String) {
    self.name = name
    self.apply = { connection throws(Failure) in try connection.execute(sql) }
  }

  /// A step that runs `body`, for one that copies rows as well as creating tables.
  package init(
    _ name: String, apply body: @escaping @Sendable (SQLiteConnection<Failure>) throws(Failure) -> Void
  ) {
    self.name = name
    self.apply = body
  }
}

/// The package's one SQLite migrator: an ordered list of named steps, recorded in
/// `PRAGMA user_version`.
///
/// Step `n` (1-based) moves a file from version `n − 1` to `n`. ``migrate(_:)`` applies every
/// missing step inside one `BEGIN IMMEDIATE` transaction (so two processes opening one new file
/// migrate it once) and refuses, without touching the file, one whose version is newer than this
/// code knows. The relay's state file, the enrichment cache, the claims file and the gateway's
/// store all migrate through it.
package struct SQLiteMigrator<Failure: Error>: Sendable {
  /// Every step, in order.
  package let migrations: [SQLiteMigration<Failure>]
  private let newer: @Sendable (_ found: Int64, _ known: Int64) -> Failure

  /// A migrator over `migrations`; `newerSchema` builds the owner's error for a file whose
  /// version `found` is above `known`.
  package init(
    _ migrations: [SQLiteMigration<Failure>],
    newerSchema: @escaping @Sendable (_ found: Int64, _ known: Int64) -> Failure
  ) {
    self.migrations = migrations
    self.newer = newerSchema
  }

  /// The version a fully migrated file records.
  package var latestVersion: Int64 { Int64(migrations.count) }

  /// The version `connection`'s file records (0 for a new file).
  package func version(of connection: SQLiteConnection<Failure>) throws(Failure) -> Int64 {
    try connection.first("PRAGMA user_version") { row in row.integer(0) } ?? 0
  }

  /// The file's version, or the owner's newer-schema error when this code does not know it.
  @discardableResult
  package func checkKnown(_ connection: SQLiteConnection<Failure>) throws(Failure) -> Int64 {
    let found = try version(of: connection)
    guard found <= latestVersion else { throw newer(found, latestVersion) }
    return found
  }

  /// Applies the steps the file lacks, in one immediate transaction; returns the version found
  /// before. A file at the latest version is left without a write.
  @discardableResult
  package func migrate(_ connection: SQLiteConnection<Failure>) throws(Failure) -> Int64 {
    let before = try checkKnown(connection)
    guard before < latestVersion else { return before }
    return try connection.immediateTransaction { () throws(Failure) -> Int64 in
      let current = try checkKnown(connection)
      for step in migrations.dropFirst(Int(current)) {
        try step.apply(connection)
      }
      try connection.execute("PRAGMA user_version = \(latestVersion)")
      return current
    }
  }
}
