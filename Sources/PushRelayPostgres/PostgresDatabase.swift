import PushRelay
import _NostrPostgres

/// A PostgreSQL database holding a relay's push state, shared by the processes of one relay:
/// where `PostgresLeaseStore`, `PostgresWakeOutbox` and `PostgresWakeListener` each open their own
/// connection (`Docs/VendoringPushRelay.md`, "PostgreSQL").
///
/// Opening one connects once, applies the migrations the database lacks under a session advisory
/// lock (so processes starting together do not race), and closes that connection again.
public final class PostgresDatabase: Sendable {
  /// The libpq connection string (`postgresql://…` or `host=… dbname=…`).
  package let connectionString: String
  /// The schema version after the migrations.
  package let schemaVersion: Int

  /// Connects with `connectionString` and migrates. Throws `storage` (with the SQLSTATE as its
  /// `storageDiagnostic`, none when no server answered) or `unsupported_schema` for a database
  /// newer than this code.
  public init(connectionString: String) throws(PushRelayError) {
    self.connectionString = connectionString
    do throws(PostgresFailure) {
      let connection = try PostgresConnection(connectionString: connectionString)
      defer { connection.close() }
      schemaVersion = try PostgresSchema.migrator.migrate(connection)
    } catch {
      throw error.relayError
    }
  }

  /// A new connection of its own, for one store, outbox or listener.
  func connect() throws(PushRelayError) -> PostgresConnection {
    do throws(PostgresFailure) {
      return try PostgresConnection(connectionString: connectionString)
    } catch {
      throw error.relayError
    }
  }
}
