import Foundation
import _NostrSQLite

/// The relay's push state file: one SQLite connection (WAL, `synchronous=FULL`) shared by
/// `SQLiteLeaseStore` and `SQLiteWakeOutbox`, every use of it under one lock.
///
/// Leases and wakes live in one file so that accepting a lease and back-filling its wakes, or
/// storing an event and enqueueing its wakes, are one transaction. The connection is touched only
/// inside `withConnection`, which holds its lock throughout. The schema is an ordered list of
/// migrations recorded in `PRAGMA user_version`. `synchronous=FULL` makes an acknowledged lease,
/// tombstone or outbox state survive a power cut, not just a process kill.
public final class PushStateDatabase: Sendable {
  /// The default busy timeout (5000 ms): how long a write waits for another process's lock.
  public static let defaultBusyTimeoutMilliseconds: Int32 = 5000
  /// The busy timeout the fixture uses (250 ms): nobody else opens its state file.
  package static let fixtureBusyTimeoutMilliseconds: Int32 = 250

  /// The schema steps, in order, applied by the package's one migrator.
  static let migrator = SQLiteMigrator<PushRelayError>(
    migrationSQL.enumerated().map { SQLiteMigration(migrationNames[$0.offset], sql: $0.element) },
    newerSchema: { found, known in
      PushRelayError(
        code: .unsupportedSchema, field: "state", message: "schema version \(found) is newer than \(known)")
    })

  /// The steps' names, one per entry of `migrationSQL`.
  private static let migrationNames = [
    "push_lease", "push_wake outbox", "recent events", "protocol generation", "direct-message wake bound",
  ]

  /// The steps' SQL; step `i` (1-based) moves `user_version` from `i − 1` to `i`.
  private static let migrationSQL: [String] = [
    // 1: push_lease. An expired or revoked lease turns inactive; inactive rows are pruned a day
    // past their expiry.
    """
    CREATE TABLE push_lease (
      origin TEXT NOT NULL,
      pubkey TEXT NOT NULL,
      d TEXT NOT NULL,
      event_id TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      key_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      active INTEGER NOT NULL,
      endpoint_enabled INTEGER NOT NULL,
      app_profile TEXT,
      transport TEXT,
      endpoint TEXT,
      endpoint_hash TEXT,
      subscriptions TEXT,
      event BLOB NOT NULL,
      PRIMARY KEY (origin, pubkey, d),
      UNIQUE (origin, event_id)
    );
    CREATE UNIQUE INDEX push_lease_endpoint ON push_lease (origin, pubkey, app_profile, endpoint_hash)
      WHERE active = 1;
    CREATE INDEX push_lease_live ON push_lease (origin, active, expires_at);
    """,
    // 2: push_wake, the outbox. One row per (origin, endpoint_hash, event).
    """
    CREATE TABLE push_wake (
      request_id TEXT PRIMARY KEY NOT NULL,
      origin TEXT NOT NULL,
      pubkey TEXT NOT NULL,
      d TEXT NOT NULL,
      generation INTEGER NOT NULL,
      key_id TEXT NOT NULL,
      endpoint TEXT NOT NULL,
      endpoint_hash TEXT NOT NULL,
      transport TEXT NOT NULL,
      event_id TEXT NOT NULL,
      channel TEXT,
      class TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      next_attempt_ms INTEGER NOT NULL,
      fence_ms INTEGER NOT NULL,
      last_status INTEGER,
      UNIQUE (origin, endpoint_hash, event_id)
    );
    CREATE INDEX push_wake_due ON push_wake (state, next_attempt_ms);
    """,
    // 3: the recent stored events (back-fill and idempotent matching), and the indexes that let
    // the claim and the sweep read only the rows they touch. push_lease_live (origin, active, …)
    // goes: the planner took it for the author's quota count and sweep, reading every active row
    // of the origin; those must narrow on (origin, pubkey), the primary key.
    """
    CREATE TABLE push_recent_event (
      origin TEXT NOT NULL,
      event_id TEXT NOT NULL,
      received_at INTEGER NOT NULL,
      event BLOB NOT NULL,
      PRIMARY KEY (origin, event_id)
    );
    CREATE INDEX push_recent_event_received ON push_recent_event (origin, received_at);
    DROP INDEX push_wake_due;
    CREATE INDEX push_wake_pending ON push_wake (next_attempt_ms) WHERE state = 'pending';
    CREATE INDEX push_wake_sending ON push_wake (fence_ms) WHERE state = 'sending';
    CREATE INDEX push_wake_expiry ON push_wake (expires_at);
    DROP INDEX push_lease_live;
    """,
    // 4: the protocol generation of each origin's rows: leases and grants of
    // one generation are not another's. Rows written before it are `nip-pl`, unless their active
    // rows hold only the empty app profile a `buzz-push-v1` lease stores.
    """
    CREATE TABLE push_origin_protocol (
      origin TEXT PRIMARY KEY NOT NULL,
      protocol TEXT NOT NULL
    );
    INSERT INTO push_origin_protocol (origin, protocol)
      SELECT origin,
        CASE WHEN SUM(app_profile = '') > 0 AND SUM(app_profile <> '') = 0 THEN 'buzz-push-v1'
          ELSE 'nip-pl' END
      FROM push_lease GROUP BY origin;
    """,
    // 5: direct-message wakes bounded per lease (`Docs/Robustness.md`): the time each was due, NULL
    // for other wakes.
    """
    ALTER TABLE push_wake ADD COLUMN dm_at_ms INTEGER;
    CREATE INDEX push_wake_direct ON push_wake (origin, pubkey, d, dm_at_ms) WHERE dm_at_ms IS NOT NULL;
    """,
  ]

  private let connection: Locked<PushStateConnection>
  /// The file's path (`:memory:` is refused: an acknowledged lease must survive a restart).
  public let path: String

  /// Opens (creating when missing) the state file at `path`, switches it to WAL with
  /// `synchronous=FULL` and applies the migrations it lacks.
  ///
  /// Throws `invalid_configuration` (field `state`) for `:memory:` or an empty path (a temporary
  /// database), `storage` when SQLite refuses or the file cannot run WAL, `unsupported_schema`
  /// when the file is newer than this code.
  public init(path: String, busyTimeoutMilliseconds: Int32 = defaultBusyTimeoutMilliseconds)
    throws(PushRelayError)
  {
    guard !Self.isTemporary(path) else {
      throw PushRelayError(
        code: .invalidConfiguration, field: "state",
        message: "\(path.isEmpty ? "an empty path" : path) is not durable: the push state needs a file")
    }
    self.path = path
    let opened = try PushStateConnection(statePath: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    let mode = try opened.query("PRAGMA journal_mode = WAL") { $0.text(0) ?? "" }.first ?? ""
    guard mode.lowercased() == "wal" else {
      throw PushRelayError(
        code: .storage, field: "state", message: "\(path): journal_mode is \(mode), WAL was asked for")
    }
    try opened.execute("PRAGMA synchronous = FULL")
    try Self.migrate(opened)
    connection = Locked(opened)
  }

  /// The schema version recorded in the file.
  package func schemaVersion() throws(PushRelayError) -> Int {
    try withConnection { connection throws(PushRelayError) in
      Int(try connection.query("PRAGMA user_version") { $0.integer(0) }.first ?? 0)
    }
  }

  /// The result of `PRAGMA integrity_check`: `["ok"]` for a sound file.
  package func integrityCheck() throws(PushRelayError) -> [String] {
    try withConnection { connection throws(PushRelayError) in
      try connection.query("PRAGMA integrity_check") { $0.text(0) ?? "" }
    }
  }

  /// The `EXPLAIN QUERY PLAN` details of `sql` (its parameters unbound), for the test that
  /// proves every statement is served by an index.
  package func queryPlan(_ sql: String) throws(PushRelayError) -> [String] {
    try withConnection { connection throws(PushRelayError) in
      try connection.query("EXPLAIN QUERY PLAN " + sql) { $0.text(3) ?? "" }
    }
  }

  /// The connection's `journal_mode` and `synchronous` level (2 is FULL), for the durability test.
  package func durability() throws(PushRelayError) -> (journalMode: String, synchronous: Int64) {
    try withConnection { connection throws(PushRelayError) in
      let mode = try connection.query("PRAGMA journal_mode") { $0.text(0) ?? "" }.first ?? ""
      let level = try connection.query("PRAGMA synchronous") { $0.integer(0) }.first ?? -1
      return (mode, level)
    }
  }

  /// Whether `path` names a database SQLite keeps only in memory or in a temporary file.
  static func isTemporary(_ path: String) -> Bool {
    path.isEmpty || path == ":memory:" || (path.hasPrefix("file:") && path.contains("memory"))
  }

  /// Runs `body` with the connection, holding the lock for its whole duration.
  func withConnection<T>(_ body: (PushStateConnection) throws(PushRelayError) -> T) throws(PushRelayError)
    -> T
  {
    try connection.withLock { (connection) throws(PushRelayError) in try body(connection) }
  }

  private static func migrate(_ connection: PushStateConnection) throws(PushRelayError) {
    try migrator.migrate(connection)
  }

}
