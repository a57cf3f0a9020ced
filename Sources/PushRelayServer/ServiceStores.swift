import PushRelay
import PushRelayPostgres

/// The configured store's parts, opened: the relay's lease store, outbox and wake signal, and the
/// service's event store, all on one SQLite file pair or all on one PostgreSQL database.
///
/// Decision where the spec is silent: on PostgreSQL the push tables (`PostgresDatabase`) and the
/// service's tables live in the same database, each schema with its own version table; the wake
/// signal is PostgreSQL's `LISTEN`/`NOTIFY` (`PostgresWakeListener`), so a wake enqueued by one
/// process wakes the workers of all of them.
struct ServiceStores: Sendable {
  let leases: any LeaseStore
  let outbox: any WakeOutbox
  let wakeSignal: any WakeSignal
  let events: any ServiceEventStore

  /// Opens `configuration.store`; `storage` names the store's field when it cannot be opened.
  init(_ configuration: PushServiceConfiguration) throws(PushServiceError) {
    switch configuration.store {
    case .sqlite(let path):
      let database: PushStateDatabase
      do {
        database = try PushStateDatabase(path: path)
      } catch {
        throw PushServiceError(code: .storage, field: "store.sqlite", message: error.message)
      }
      leases = SQLiteLeaseStore(database: database)
      outbox = SQLiteWakeOutbox(database: database)
      wakeSignal = InProcessWakeSignal()
      events = try SQLiteServiceEventStore(
        path: path + ".events", retentionSeconds: configuration.retentionSeconds,
        authorQuotaBytes: configuration.authorQuotaBytes)
    case .postgres(let conninfo):
      do {
        let database = try PostgresDatabase(connectionString: conninfo)
        leases = try PostgresLeaseStore(database: database)
        outbox = try PostgresWakeOutbox(database: database)
        wakeSignal = try PostgresWakeListener(database: database)
      } catch {
        throw PushServiceError(code: .storage, field: "store.postgres", message: error.message)
      }
      events = try PostgresServiceEventStore(
        connectionString: conninfo, retentionSeconds: configuration.retentionSeconds,
        authorQuotaBytes: configuration.authorQuotaBytes)
    }
  }

  /// Stops the wake signal's listener thread, if it has one.
  func close() {
    (wakeSignal as? PostgresWakeListener)?.close()
  }
}
