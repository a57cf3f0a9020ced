import Foundation
import NostrEvent
import NostrPushCore
import PushRelay
import _NostrSQLite

/// The SQLite `ServiceEventStore`: one file (WAL, `synchronous=FULL`, mode 0600) migrated by the
/// package's one `SQLiteMigrator`, for a service of one process.
///
/// `@unchecked Sendable`: the one connection is used only under `connection`'s lock.
public final class SQLiteServiceEventStore: ServiceEventStore, @unchecked Sendable {

  /// The store's schema steps, in order (`package` for the test that writes a file at an older
  /// version).
  package static let migrator = SQLiteMigrator<PushServiceError>(
    [
      SQLiteMigration(
        "events",
        sql: """
          CREATE TABLE service_event (
            id TEXT PRIMARY KEY, pubkey TEXT NOT NULL, kind INTEGER NOT NULL,
            created_at INTEGER NOT NULL, received_at INTEGER NOT NULL, size INTEGER NOT NULL,
            json BLOB NOT NULL) WITHOUT ROWID;
          CREATE INDEX service_event_received ON service_event (received_at);
          CREATE INDEX service_event_kind ON service_event (kind, created_at);
          CREATE INDEX service_event_author ON service_event (pubkey, created_at);
          CREATE TABLE upstream_cursor (url TEXT PRIMARY KEY, cursor INTEGER NOT NULL) WITHOUT ROWID;
          """),
      // An addressable event's `d` in a column of its own, so that a read by `#d` (the roster's
      // current member list of one channel) is one index look-up, not a scan of every list of
      // the kind that stops at `maxScannedRows`. Rows stored before it are read once to fill it.
      SQLiteMigration(
        "event address",
        apply: { connection throws(PushServiceError) in
          try connection.execute(
            """
            ALTER TABLE service_event ADD COLUMN d TEXT;
            CREATE INDEX service_event_address ON service_event (kind, d, created_at);
            """)
          let range = ServiceEventReads.addressableKinds
          let rows = try connection.query(
            "SELECT id, json FROM service_event WHERE kind >= ? AND kind < ?",
            [.integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))]
          ) { ($0.text(0) ?? "", $0.blob(1) ?? []) }
          for (id, json) in rows {
            guard let event = try? Event(json: json) else { continue }
            _ = try connection.run(
              "UPDATE service_event SET d = ? WHERE id = ?",
              [.text(ServiceEventReads.address(of: event)), .text(id)])
          }
        }),
    ],
    newerSchema: { found, known in
      PushServiceError(
        code: .unsupportedSchema, field: "store",
        message: "the event store is at schema \(found); this code knows \(known)")
    })

  private let connection: Locked<SQLiteConnection<PushServiceError>>
  /// The store's file.
  public let path: String
  /// How long events are kept, in seconds.
  public let retentionSeconds: Int64
  /// The most bytes of one author's events kept.
  public let authorQuotaBytes: Int

  /// Opens (creating) the store at `path` and migrates it.
  public init(
    path: String, retentionSeconds: Int64 = PushServiceConfiguration.defaultRetentionSeconds,
    authorQuotaBytes: Int = PushServiceConfiguration.defaultAuthorQuotaBytes
  ) throws(PushServiceError) {
    self.path = path
    self.retentionSeconds = retentionSeconds
    self.authorQuotaBytes = authorQuotaBytes
    let opened = try SQLiteConnection<PushServiceError>(path: path, busyTimeoutMilliseconds: 5000) {
      PushServiceError(code: .storage, field: "store", message: $0.message)
    }
    _ = try opened.query("PRAGMA journal_mode = WAL") { $0.text(0) ?? "" }
    try opened.execute("PRAGMA synchronous = FULL")
    try Self.migrator.migrate(opened)
    connection = Locked(opened)
  }

  /// Stores `event` (its `json`) received at `receivedAt`; false when it was already stored or
  /// is larger than the author's whole quota. The author's oldest events go first when the quota
  /// would be passed. One immediate transaction.
  @discardableResult
  public func insert(_ event: Event, json: [UInt8], receivedAt: Int64) throws(PushServiceError) -> Bool {
    guard json.count <= min(ServiceIngest.maxEventBytes, authorQuotaBytes) else { return false }
    let quota = Int64(authorQuotaBytes)
    return try connection.withLock { connection throws(PushServiceError) in
      try connection.immediateTransaction { () throws(PushServiceError) -> Bool in
        try ServiceEventAdmission.store(
          event, json: json, receivedAt: receivedAt, quota: quota, numbered: false,
          write: { (sql, values) throws(PushServiceError) in
            try connection.run(sql, values.map(\.sqliteValue))
          },
          total: { (sql, values) throws(PushServiceError) in
            try connection.first(sql, values.map(\.sqliteValue)) { $0.integer(0) } ?? 0
          },
          oldest: { (sql, values) throws(PushServiceError) in
            try connection.first(sql, values.map(\.sqliteValue)) {
              (id: $0.text(0) ?? "", size: $0.integer(1))
            }
          })
      }
    }
  }

  /// Whether an event with `id` is stored.
  public func contains(id: String) throws(PushServiceError) -> Bool {
    try connection.withLock { connection throws(PushServiceError) in
      try connection.first("SELECT 1 FROM service_event WHERE id = ?", [.text(id)]) { _ in true } ?? false
    }
  }

  /// The stored events answering `filters`, newest first (a tie to the lower id), each filter's
  /// `limit` (default 100, at most 1000) honoured, `visible` applied before `limit` counts; at
  /// most ``maxScannedRows`` rows are read per filter.
  public func events(matching filters: [Filter], visible: (Event) -> Bool) throws(PushServiceError) -> [Event]
  {
    try ServiceEventReads.answer(filters, numbered: false, visible: visible) {
      (sql, values) throws(PushServiceError) -> [[UInt8]] in
      try connection.withLock { connection throws(PushServiceError) in
        try connection.query(sql, values.map(\.sqliteValue)) { $0.blob(0) ?? [] }
      }
    }
  }

  /// Deletes events received more than the retention before `now`; the number deleted.
  @discardableResult
  public func prune(now: Int64) throws(PushServiceError) -> Int {
    try connection.withLock { connection throws(PushServiceError) in
      try connection.run(
        "DELETE FROM service_event WHERE received_at < ?", [.integer(now - retentionSeconds)])
    }
  }

  /// How many events are stored, and their bytes.
  public func size() throws(PushServiceError) -> (events: Int, bytes: Int) {
    try connection.withLock { connection throws(PushServiceError) in
      try connection.first("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM service_event") {
        (Int($0.integer(0)), Int($0.integer(1)))
      } ?? (0, 0)
    }
  }

  // MARK: Upstream cursors

  /// The durable cursor of the upstream at `url` (Unix seconds up to which it was followed live),
  /// nil before the first.
  public func cursor(upstream url: String) throws(PushServiceError) -> Int64? {
    try connection.withLock { connection throws(PushServiceError) in
      try connection.first("SELECT cursor FROM upstream_cursor WHERE url = ?", [.text(url)]) { $0.integer(0) }
    }
  }

  /// Moves the cursor of `url` forward to `cursor` (never back).
  public func advanceCursor(upstream url: String, to cursor: Int64) throws(PushServiceError) {
    try connection.withLock { connection throws(PushServiceError) in
      try connection.run(
        """
        INSERT INTO upstream_cursor (url, cursor) VALUES (?, ?)
        ON CONFLICT (url) DO UPDATE SET cursor = MAX(cursor, excluded.cursor)
        """, [.text(url), .integer(cursor)])
    }
  }
}
