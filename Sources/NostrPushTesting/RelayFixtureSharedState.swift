import NostrEvent
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

  /// Opens the NIP-98 replay store every process on the database shares (`Docs/Robustness.md`), so
  /// a header one process accepted is refused by the others; nil keeps the relay's own set.
  package var openReplays: (@Sendable () throws(PushRelayError) -> any NIP98ReplayStore)?

  /// A shared state called `name`, opened by `open`, its replay store by `openReplays`.
  package init(
    name: String,
    open:
      @escaping @Sendable () throws(PushRelayError) -> (
        store: any LeaseStore, outbox: any WakeOutbox, signal: any WakeSignal
      ),
    openReplays: (@Sendable () throws(PushRelayError) -> any NIP98ReplayStore)? = nil
  ) {
    self.name = name
    self.open = open
    self.openReplays = openReplays
  }
}
