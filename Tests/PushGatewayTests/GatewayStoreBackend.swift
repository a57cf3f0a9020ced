import Foundation
import PushGateway
import PushGatewayPostgres
import PushRelayPostgres
import Testing

/// Where a contract test keeps the gateway's state: a SQLite file, or a PostgreSQL database of
/// its own on the server `NOSTRPUSH_POSTGRES` names (`Scripts/with-postgres`); without that
/// variable the PostgreSQL cases are skipped with a note, never silently.
enum GatewayStoreBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
  case sqlite
  case postgres

  var testDescription: String { rawValue }

  /// The PostgreSQL server's connection string, nil when not configured.
  static var postgresBase: String? {
    guard let value = ProcessInfo.processInfo.environment["NOSTRPUSH_POSTGRES"], !value.isEmpty else {
      return nil
    }
    return value
  }

  /// SQLite always; PostgreSQL when `NOSTRPUSH_POSTGRES` is set (otherwise
  /// `GatewayBackendTests.runsThePostgreSQLCasesToo` is skipped with the note saying how to run them).
  static var available: [GatewayStoreBackend] { postgresBase == nil ? [.sqlite] : [.sqlite, .postgres] }

  /// A fresh store location: a SQLite path in `directory`, or a new database (dropped by
  /// `cleanup`).
  func makeLocation(in directory: URL) throws -> GatewayStoreLocation {
    switch self {
    case .sqlite:
      return GatewayStoreLocation(sqlitePath: directory.appendingPathComponent("gateway.sqlite").path)
    case .postgres:
      guard let base = Self.postgresBase else {
        throw HarnessFailure(message: "NOSTRPUSH_POSTGRES is not set")
      }
      let name = "gw_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
      let admin = try PostgresConnection(connectionString: base)
      defer { admin.close() }
      try admin.execute("CREATE DATABASE \(name)")
      return GatewayStoreLocation(postgres: base + " dbname=" + name, base: base, database: name)
    }
  }
}

/// One store location; each ``open()`` is a new connection (another process, for PostgreSQL).
struct GatewayStoreLocation: Sendable {
  var sqlitePath: String?
  var postgres: String?
  var base: String?
  var database: String?

  init(sqlitePath: String) { self.sqlitePath = sqlitePath }

  init(postgres: String, base: String, database: String) {
    self.postgres = postgres
    self.base = base
    self.database = database
  }

  /// A store on this location.
  func open(busyTimeoutMilliseconds: Int32 = 5000) throws -> any PushGatewayStore {
    if let sqlitePath {
      return try SQLitePushGatewayStore(path: sqlitePath, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }
    return try PostgresPushGatewayStore(connectionString: postgres ?? "")
  }

  /// Drops the PostgreSQL database (SQLite files go with their directory).
  func cleanup() {
    guard let base, let database, let admin = try? PostgresConnection(connectionString: base) else { return }
    defer { admin.close() }
    try? admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
  }
}

@Suite struct GatewayBackendTests {
  @Test(
    .enabled(
      if: GatewayStoreBackend.postgresBase != nil,
      "PostgreSQL cases need NOSTRPUSH_POSTGRES: run them with `Scripts/with-postgres -- swift test`"))
  func runsThePostgreSQLCasesToo() {
    #expect(GatewayStoreBackend.available == [.sqlite, .postgres])
  }
}
