import PushRelay

/// Leases and wakes a fixture relay keeps outside its own SQLite file, shared with other relay
/// processes: the CLI's `relay --database` (PostgreSQL, `Docs/VendoringPushRelay.md` §PostgreSQL).
///
/// The fixture does not link a database client: whoever configures it (the CLI, which links
/// `PushRelayPostgres`) hands it a way to open the store, the outbox and the wake signal.
package struct RelayFixtureSharedState: Sendable {
  /// What the state is, for errors and equality (`postgresql`); never the connection string,
  /// which may hold a password.
  package var name: String
  /// Opens the lease store, the wake outbox on the same database, and the wake signal that hears
  /// every process's enqueues.
  package var open:
    @Sendable () throws(PushRelayError) -> (
      store: any LeaseStore, outbox: any WakeOutbox, signal: any WakeSignal
    )

  /// A shared state called `name`, opened by `open`.
  package init(
    name: String,
    open:
      @escaping @Sendable () throws(PushRelayError) -> (
        store: any LeaseStore, outbox: any WakeOutbox, signal: any WakeSignal
      )
  ) {
    self.name = name
    self.open = open
  }
}
