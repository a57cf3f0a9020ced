import NostrEvent
import NostrPushCore
import PushRelay
import PushRelayPostgres
import _NostrPostgres

/// The PostgreSQL `ServiceEventStore`: the events and upstream cursors of a service whose
/// processes share one database (`"store":{"postgres":…}`), beside the relay's push tables.
///
/// Its tables are migrated by the package's one `PostgresMigrator` (version table
/// `service_schema_version`, lock key 3). Every process follows the same upstreams, so the same
/// event arrives at each: the insert is `ON CONFLICT (id) DO NOTHING` (one row, the others answer
/// "already stored"), and a cursor only moves forward (`GREATEST`). An insert runs under a
/// transaction-scoped advisory lock of its author (class 28276), so two processes trimming one
/// author to the quota do not race. One connection, used under its lock; the connection's
/// statement and lock timeouts bound every call.
public final class PostgresServiceEventStore: ServiceEventStore, @unchecked Sendable {
  static let migrator = PostgresMigrator(
    versionTable: "service_schema_version", lockKey: 3,
    steps: [
      PostgresMigrator.Step(
        "service events",
        sql: """
          CREATE TABLE service_event (
            id text PRIMARY KEY, pubkey text NOT NULL, kind integer NOT NULL,
            created_at bigint NOT NULL, received_at bigint NOT NULL, size integer NOT NULL,
            json text NOT NULL, d text);
          CREATE INDEX service_event_received ON service_event (received_at);
          CREATE INDEX service_event_address ON service_event (kind, d, created_at);
          CREATE INDEX service_event_kind ON service_event (kind, created_at);
          CREATE INDEX service_event_author ON service_event (pubkey, created_at);
          CREATE TABLE upstream_cursor (url text PRIMARY KEY, cursor bigint NOT NULL);
          """)
    ])

  private let connection: Locked<PostgresConnection>
  /// How long events are kept, in seconds.
  public let retentionSeconds: Int64
  /// The most bytes of one author's events kept.
  public let authorQuotaBytes: Int

  /// Connects with `connectionString` and migrates; `storage` (field `store.postgres`) when no
  /// server answers, `unsupported_schema` for a database newer than this code.
  public init(
    connectionString: String, retentionSeconds: Int64 = PushServiceConfiguration.defaultRetentionSeconds,
    authorQuotaBytes: Int = PushServiceConfiguration.defaultAuthorQuotaBytes
  ) throws(PushServiceError) {
    self.retentionSeconds = retentionSeconds
    self.authorQuotaBytes = authorQuotaBytes
    do throws(PostgresFailure) {
      let opened = try PostgresConnection(connectionString: connectionString)
      try Self.migrator.migrate(opened)
      // The migrator raised this session's timeouts; a service statement gets the usual bounds.
      opened.close()
      connection = Locked(opened)
    } catch {
      throw Self.failure(error)
    }
  }

  /// Stores `event` under its author's advisory lock; see ``ServiceEventStore/insert(_:json:receivedAt:)``.
  @discardableResult
  public func insert(_ event: Event, json: [UInt8], receivedAt: Int64) throws(PushServiceError) -> Bool {
    guard json.count <= min(ServiceIngest.maxEventBytes, authorQuotaBytes) else { return false }
    let quota = Int64(authorQuotaBytes)
    return try run { connection throws(PostgresFailure) in
      try connection.transaction { () throws(PostgresFailure) -> (value: Bool, commit: Bool) in
        try connection.query("SELECT pg_advisory_xact_lock(28276, hashtext($1::text))", [event.pubkey])
        let stored = try ServiceEventAdmission.store(
          event, json: json, receivedAt: receivedAt, quota: quota, numbered: true,
          write: { (sql, values) throws(PostgresFailure) in
            try connection.query(sql, values.map(\.postgresParameter)).changed
          },
          total: { (sql, values) throws(PostgresFailure) in
            try connection.query(sql, values.map(\.postgresParameter), maxRows: 1).rows.first?.integer(0) ?? 0
          },
          oldest: { (sql, values) throws(PostgresFailure) in
            try connection.query(sql, values.map(\.postgresParameter), maxRows: 1).rows.first.map {
              (id: $0.text(0) ?? "", size: $0.integer(1))
            }
          })
        return (stored, true)
      }
    }
  }

  /// Whether an event with `id` is stored.
  public func contains(id: String) throws(PushServiceError) -> Bool {
    try run { connection throws(PostgresFailure) in
      try connection.read { () throws(PostgresFailure) in
        !(try connection.query("SELECT 1 FROM service_event WHERE id = $1", [id], maxRows: 1).rows.isEmpty)
      }
    }
  }

  /// The stored events answering `filters` (``ServiceEventReads``).
  public func events(matching filters: [Filter], visible: (Event) -> Bool) throws(PushServiceError) -> [Event]
  {
    try ServiceEventReads.answer(filters, numbered: true, visible: visible) {
      (sql, values) throws(PushServiceError) -> [[UInt8]] in
      try run { connection throws(PostgresFailure) in
        try connection.read { () throws(PostgresFailure) in
          try connection.query(
            sql, values.map(\.postgresParameter), maxRows: ServiceEventReads.maxScannedRows
          ).rows.map { Array(($0.text(0) ?? "").utf8) }
        }
      }
    }
  }

  /// Deletes events received more than the retention before `now`; the number deleted.
  @discardableResult
  public func prune(now: Int64) throws(PushServiceError) -> Int {
    try run { connection throws(PostgresFailure) in
      try connection.read { () throws(PostgresFailure) in
        try connection.query(
          "DELETE FROM service_event WHERE received_at < $1", [String(now - retentionSeconds)]
        ).changed
      }
    }
  }

  /// How many events are stored, and their bytes.
  public func size() throws(PushServiceError) -> (events: Int, bytes: Int) {
    try run { connection throws(PostgresFailure) in
      try connection.read { () throws(PostgresFailure) in
        let row = try connection.query(
          "SELECT COUNT(*), COALESCE(SUM(size), 0)::bigint FROM service_event", maxRows: 1
        ).rows.first
        return (Int(row?.integer(0) ?? 0), Int(row?.integer(1) ?? 0))
      }
    }
  }

  /// The durable cursor of the upstream at `url`, nil before the first.
  public func cursor(upstream url: String) throws(PushServiceError) -> Int64? {
    try run { connection throws(PostgresFailure) in
      try connection.read { () throws(PostgresFailure) in
        try connection.query("SELECT cursor FROM upstream_cursor WHERE url = $1", [url], maxRows: 1)
          .rows.first?.integer(0)
      }
    }
  }

  /// Moves the cursor of `url` forward to `cursor` (never back, whichever process writes).
  public func advanceCursor(upstream url: String, to cursor: Int64) throws(PushServiceError) {
    try run { connection throws(PostgresFailure) in
      try connection.read { () throws(PostgresFailure) in
        try connection.query(
          """
          INSERT INTO upstream_cursor (url, cursor) VALUES ($1, $2)
          ON CONFLICT (url) DO UPDATE SET cursor = GREATEST(upstream_cursor.cursor, excluded.cursor)
          """, [url, String(cursor)])
      }
    }
  }

  private func run<T>(_ body: (PostgresConnection) throws(PostgresFailure) -> T) throws(PushServiceError) -> T
  {
    do throws(PostgresFailure) {
      return try connection.withLock { (connection) throws(PostgresFailure) in try body(connection) }
    } catch {
      throw Self.failure(error)
    }
  }

  private static func failure(_ error: PostgresFailure) -> PushServiceError {
    PushServiceError(
      code: error.newerSchema ? .unsupportedSchema : .storage, field: "store.postgres",
      message: error.description)
  }
}
