/// Every statement the SQLite store, the outbox and their sweeps run, in one place so a test can
/// read each one's `EXPLAIN QUERY PLAN` and prove that none scans `push_lease` or `push_wake`
/// (`Docs/VendoringPushRelay.md`, "Scale").
///
/// The quota count, the sweep and the prune narrow on the primary key's (origin, pubkey) prefix;
/// the claim reads the partial indexes of pending and sending rows in due order; the wake sweep
/// reads the expiry index.
package enum PushStatements {
  /// The lease columns, in the order `SQLiteLeaseStore` reads them.
  package static let leaseColumns = """
    origin, pubkey, d, event_id, created_at, expires_at, key_id, generation, active, endpoint_enabled, \
    app_profile, transport, endpoint, endpoint_hash, subscriptions, event
    """
  /// The wake columns, in the order `SQLiteWakeOutbox` reads them.
  package static let wakeColumns = """
    request_id, origin, pubkey, d, generation, key_id, endpoint, endpoint_hash, transport, event_id, \
    channel, class, expires_at, state, attempts, next_attempt_ms, fence_ms, last_status, dm_at_ms
    """

  // MARK: push_lease

  /// Accept step 1: which address holds an event id.
  package static let eventHolder = "SELECT pubkey, d FROM push_lease WHERE origin = ? AND event_id = ?"
  /// One address's row.
  package static let leaseRow =
    "SELECT \(leaseColumns) FROM push_lease WHERE origin = ? AND pubkey = ? AND d = ?"
  /// Accept step 4: the author's expired active rows turn inactive.
  package static let sweepAuthor =
    "UPDATE push_lease SET active = 0 WHERE origin = ? AND pubkey = ? AND active = 1 AND expires_at <= ?"
  /// The author's inactive rows more than a day past their expiry go.
  package static let pruneAuthor =
    "DELETE FROM push_lease WHERE origin = ? AND pubkey = ? AND active = 0 AND expires_at < ?"
  /// The author's rows, active or not (the row bound).
  package static let authorRows = "SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ?"
  /// Accept step 5: the author's other active addresses.
  package static let quota =
    "SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ? AND active = 1 AND d <> ?"
  /// Accept step 6: another active address with the same app profile and endpoint.
  package static let endpointClash = """
    SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ? AND active = 1 AND d <> ? \
    AND app_profile = ? AND endpoint_hash = ?
    """
  /// Accept step 7: the upsert.
  package static let upsertLease = """
    INSERT INTO push_lease (\(leaseColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
    ON CONFLICT (origin, pubkey, d) DO UPDATE SET \
    event_id = excluded.event_id, created_at = excluded.created_at, expires_at = excluded.expires_at, \
    key_id = excluded.key_id, generation = excluded.generation, active = excluded.active, \
    endpoint_enabled = excluded.endpoint_enabled, app_profile = excluded.app_profile, \
    transport = excluded.transport, endpoint = excluded.endpoint, endpoint_hash = excluded.endpoint_hash, \
    subscriptions = excluded.subscriptions, event = excluded.event
    """
  /// The live leases of an origin, read once when its index is first built.
  package static let liveLeases = """
    SELECT \(leaseColumns) FROM push_lease \
    WHERE origin = ? AND active = 1 AND expires_at > ? AND endpoint_enabled = 1
    """
  /// The author's current events, newest first: `ORDER BY created_at DESC, event_id ASC` is
  /// `Event.supersedes` in SQL (each row supersedes the rows after it).
  package static let currentEvents =
    "SELECT event FROM push_lease WHERE origin = ? AND pubkey = ? ORDER BY created_at DESC, event_id ASC"
  /// A 410 bound to its wake.
  package static let disableEndpoint = """
    UPDATE push_lease SET endpoint_enabled = 0 \
    WHERE origin = ? AND pubkey = ? AND d = ? AND generation = ? AND endpoint_hash = ? AND endpoint_enabled = 1
    """

  // MARK: push_recent_event

  /// Recent events older than the back-fill window go.
  package static let pruneRecent = "DELETE FROM push_recent_event WHERE origin = ? AND received_at < ?"
  /// Whether an event was recorded (and matched) already.
  package static let recentExists = "SELECT 1 FROM push_recent_event WHERE origin = ? AND event_id = ?"
  /// Records a stored event.
  package static let insertRecent =
    "INSERT INTO push_recent_event (origin, event_id, received_at, event) VALUES (?, ?, ?, ?)"
  /// The back-fill candidates, newest first.
  package static let recentCandidates = """
    SELECT received_at, event FROM push_recent_event WHERE origin = ? AND received_at >= ? \
    ORDER BY received_at DESC LIMIT ?
    """

  // MARK: push_wake

  /// Enqueue: the first row per (origin, endpoint hash, event id) wins; `dm_at_ms` (the time a
  /// direct-message wake is due, NULL for others) last.
  package static let insertWake = """
    INSERT OR IGNORE INTO push_wake (\(wakeColumns)) \
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, 0, NULL, ?)
    """
  /// Whether a lease has a direct-message wake queued (`pending`).
  package static let directQueued = """
    SELECT 1 FROM push_wake WHERE origin = ? AND pubkey = ? AND d = ? AND dm_at_ms IS NOT NULL \
    AND state = 'pending' LIMIT 1
    """
  /// The times of a lease's latest direct-message wakes after a moment, newest first.
  package static let directRecent = """
    SELECT dm_at_ms FROM push_wake WHERE origin = ? AND pubkey = ? AND d = ? AND dm_at_ms IS NOT NULL \
    AND dm_at_ms > ? ORDER BY dm_at_ms DESC LIMIT ?
    """
  /// Pending rows that are due, earliest first.
  package static let duePending = """
    SELECT \(wakeColumns) FROM push_wake WHERE state = 'pending' AND next_attempt_ms <= ? \
    ORDER BY next_attempt_ms LIMIT ?
    """
  /// Sending rows whose fence passed, earliest first.
  package static let fencedSending = """
    SELECT \(wakeColumns) FROM push_wake WHERE state = 'sending' AND fence_ms <= ? \
    ORDER BY fence_ms LIMIT ?
    """
  /// Claims one row.
  package static let claimWake =
    "UPDATE push_wake SET state = 'sending', attempts = ?, fence_ms = ? WHERE request_id = ?"
  /// Fails an expired or fenced-out row found by a claim.
  package static let failWake = "UPDATE push_wake SET state = 'failed' WHERE request_id = ?"
  /// Writes an outcome while the claim holds.
  package static let recordWake = """
    UPDATE push_wake SET state = ?, next_attempt_ms = ?, last_status = ? \
    WHERE request_id = ? AND state = 'sending' AND attempts = ? AND fence_ms > ?
    """
  /// Rows an hour past their expiry go.
  package static let sweepWakes = "DELETE FROM push_wake WHERE expires_at <= ?"

  /// Every statement above that touches a table, by name, for the query-plan test.
  package static let all: [(name: String, sql: String)] = [
    ("eventHolder", eventHolder), ("leaseRow", leaseRow), ("sweepAuthor", sweepAuthor),
    ("pruneAuthor", pruneAuthor), ("authorRows", authorRows), ("quota", quota),
    ("endpointClash", endpointClash), ("upsertLease", upsertLease), ("liveLeases", liveLeases),
    ("currentEvents", currentEvents), ("disableEndpoint", disableEndpoint), ("pruneRecent", pruneRecent),
    ("recentExists", recentExists), ("insertRecent", insertRecent), ("recentCandidates", recentCandidates),
    ("insertWake", insertWake), ("directQueued", directQueued), ("directRecent", directRecent),
    ("duePending", duePending), ("fencedSending", fencedSending),
    ("claimWake", claimWake), ("failWake", failWake), ("recordWake", recordWake), ("sweepWakes", sweepWakes),
  ]
}
