import Foundation
import PushRelay
import PushRelayPostgres
import Testing
import _NostrPostgres

/// A database of one test's own on the server `NOSTRPUSH_POSTGRES` names (`Scripts/with-postgres`),
/// created from it and dropped afterwards, so PostgreSQL tests run in parallel like the rest.
///
/// Without `NOSTRPUSH_POSTGRES` the PostgreSQL tests are skipped with ``skipNote``, never silently.
final class PostgresTestDatabase: Sendable {
  /// The connection string of a database tests may create others from, nil when not set.
  static var baseConnectionString: String? {
    guard let value = ProcessInfo.processInfo.environment["NOSTRPUSH_POSTGRES"], !value.isEmpty else {
      return nil
    }
    return value
  }

  /// Whether a server is configured.
  static var isConfigured: Bool { baseConnectionString != nil }

  /// What a skipped PostgreSQL test says.
  static let skipNote: Comment =
    "PostgreSQL tests need NOSTRPUSH_POSTGRES: run them with `Scripts/with-postgres -- swift test`"

  /// The database's name (`np_` and 32 hex).
  let name: String
  /// The connection string of this test's database.
  let connectionString: String

  /// Creates a fresh empty database.
  init() throws {
    guard let base = Self.baseConnectionString else {
      throw PushRelayError(code: .invalidConfiguration, message: "NOSTRPUSH_POSTGRES is not set")
    }
    name = "np_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    // A key/value connection string: a later keyword wins (Scripts/with-postgres writes this form).
    connectionString = base + " dbname=" + name
    try Self.admin(base) { connection in try connection.execute("CREATE DATABASE \(name)") }
  }

  /// Opens (and migrates) the database as a relay would.
  func open() throws -> PostgresDatabase {
    try PostgresDatabase(connectionString: connectionString)
  }

  /// Runs `sql` on a connection of its own (to break or inspect the database behind the store).
  func execute(_ sql: String) throws {
    try Self.admin(connectionString) { connection in try connection.execute(sql) }
  }

  /// The rows of `sql` with text `parameters`, as text.
  func rows(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
    var rows: [[String?]] = []
    try Self.admin(connectionString) { connection in
      rows = try connection.query(sql, parameters, maxRows: 1_000_000).rows.map(\.values)
    }
    return rows
  }

  /// Drops the database, ending any session still on it.
  func drop() {
    guard let base = Self.baseConnectionString else { return }
    try? Self.admin(base) { connection in
      try connection.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
  }

  private static func admin(_ connectionString: String, _ body: (PostgresConnection) throws -> Void) throws {
    let connection = try PostgresConnection(connectionString: connectionString)
    defer { connection.close() }
    try connection.execute("SET statement_timeout = 0; SET lock_timeout = 0")
    try body(connection)
  }
}

/// Where a contract test keeps leases and wakes.
enum StoreBackend: String, Sendable, CustomTestStringConvertible {
  case sqlite
  case postgres

  /// SQLite always; PostgreSQL when `NOSTRPUSH_POSTGRES` is set (otherwise each suite's
  /// `postgresCasesRun` test is skipped with the note saying how to run them).
  static var available: [StoreBackend] {
    PostgresTestDatabase.isConfigured ? [.sqlite, .postgres] : [.sqlite]
  }

  var testDescription: String { rawValue }
}

/// A store tests can list every row of.
protocol InspectableLeaseStore: LeaseStore {
  /// Every row of `origin`, leases and tombstones, by pubkey and `d`.
  func allLeases(origin: String) throws(PushRelayError) -> [StoredLease]
}

extension SQLiteLeaseStore: InspectableLeaseStore {}
extension PostgresLeaseStore: InspectableLeaseStore {}
