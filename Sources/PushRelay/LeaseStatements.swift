/// The `push_lease` statements (and the back-fill's read of recorded events), written once for
/// both backends: `?` placeholders (numbered `$1…` for PostgreSQL) and the dialect's flag
/// literals (SQLite's 1/0, PostgreSQL's true/false, which its planner folds so its partial
/// indexes on `active` still apply). Both query-plan tests read these texts.
package struct LeaseStatements: Sendable {
  /// SQLite's spelling.
  package static let sqlite = LeaseStatements(yes: "1", no: "0", numbered: false)
  /// PostgreSQL's spelling.
  package static let postgres = LeaseStatements(yes: "true", no: "false", numbered: true)

  /// The lease columns, in the order `StoredLease(row:)` reads them.
  package static let leaseColumns = """
    origin, pubkey, d, event_id, created_at, expires_at, key_id, generation, active, endpoint_enabled, \
    app_profile, transport, endpoint, endpoint_hash, subscriptions, event
    """

  /// Accept step 1: which address holds an event id.
  package let eventHolder: String
  /// One address's row.
  package let leaseRow: String
  /// Accept step 4: the author's expired active rows turn inactive.
  package let sweepAuthor: String
  /// The author's inactive rows more than a day past their expiry go.
  package let pruneAuthor: String
  /// The author's rows, active or not (the row bound).
  package let authorRows: String
  /// Accept step 5: the author's other active addresses.
  package let quota: String
  /// Accept step 6: another active address with the same app profile and endpoint.
  package let endpointClash: String
  /// Accept step 7: the upsert.
  package let upsertLease: String
  /// The live leases of an origin, read when an index is built.
  package let liveLeases: String
  /// The author's current events, newest first: `ORDER BY created_at DESC, event_id ASC` is
  /// `Event.supersedes` in SQL (each row supersedes the rows after it).
  package let currentEvents: String
  /// A 410 bound to its wake.
  package let disableEndpoint: String
  /// Every row of an origin, for tests and inspection.
  package let originLeases: String
  /// The back-fill candidates, newest first.
  package let recentCandidates: String

  private init(yes: String, no: String, numbered: Bool) {
    let sql: (String) -> String = { numbered ? Self.numbering($0) : $0 }
    let columns = Self.leaseColumns
    eventHolder = sql("SELECT pubkey, d FROM push_lease WHERE origin = ? AND event_id = ?")
    leaseRow = sql("SELECT \(columns) FROM push_lease WHERE origin = ? AND pubkey = ? AND d = ?")
    sweepAuthor = sql(
      "UPDATE push_lease SET active = \(no) WHERE origin = ? AND pubkey = ? AND active = \(yes) AND expires_at <= ?"
    )
    pruneAuthor = sql(
      "DELETE FROM push_lease WHERE origin = ? AND pubkey = ? AND active = \(no) AND expires_at < ?")
    authorRows = sql("SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ?")
    quota = sql(
      "SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ? AND active = \(yes) AND d <> ?")
    endpointClash = sql(
      """
      SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ? AND active = \(yes) AND d <> ? \
      AND app_profile = ? AND endpoint_hash = ?
      """)
    upsertLease = sql(
      """
      INSERT INTO push_lease (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
      ON CONFLICT (origin, pubkey, d) DO UPDATE SET \
      event_id = excluded.event_id, created_at = excluded.created_at, expires_at = excluded.expires_at, \
      key_id = excluded.key_id, generation = excluded.generation, active = excluded.active, \
      endpoint_enabled = excluded.endpoint_enabled, app_profile = excluded.app_profile, \
      transport = excluded.transport, endpoint = excluded.endpoint, endpoint_hash = excluded.endpoint_hash, \
      subscriptions = excluded.subscriptions, event = excluded.event
      """)
    liveLeases = sql(
      """
      SELECT \(columns) FROM push_lease \
      WHERE origin = ? AND active = \(yes) AND expires_at > ? AND endpoint_enabled = \(yes)
      """)
    currentEvents = sql(
      "SELECT event FROM push_lease WHERE origin = ? AND pubkey = ? ORDER BY created_at DESC, event_id ASC")
    disableEndpoint = sql(
      """
      UPDATE push_lease SET endpoint_enabled = \(no) \
      WHERE origin = ? AND pubkey = ? AND d = ? AND generation = ? AND endpoint_hash = ? \
      AND endpoint_enabled = \(yes)
      """)
    originLeases = sql("SELECT \(columns) FROM push_lease WHERE origin = ? ORDER BY pubkey, d")
    recentCandidates = sql(
      """
      SELECT received_at, event FROM push_recent_event WHERE origin = ? AND received_at >= ? \
      ORDER BY received_at DESC LIMIT ?
      """)
  }

  /// Every statement that touches `push_lease`, by name, for the query-plan tests.
  package var planned: [(name: String, sql: String)] {
    [
      ("eventHolder", eventHolder), ("leaseRow", leaseRow), ("sweepAuthor", sweepAuthor),
      ("pruneAuthor", pruneAuthor), ("authorRows", authorRows), ("quota", quota),
      ("endpointClash", endpointClash), ("upsertLease", upsertLease), ("liveLeases", liveLeases),
      ("currentEvents", currentEvents), ("disableEndpoint", disableEndpoint),
    ]
  }

  /// `sql` with its `?` placeholders numbered `$1`, `$2`, … in order (no statement here has a `?`
  /// inside a string literal).
  package static func numbering(_ sql: String) -> String {
    var numbered = ""
    var next = 1
    for character in sql {
      if character == "?" {
        numbered += "$\(next)"
        next += 1
      } else {
        numbered.append(character)
      }
    }
    return numbered
  }
}
