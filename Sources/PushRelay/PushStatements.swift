/// Every statement the SQLite store (beside `LeaseStatements.sqlite`, the lease statements both
/// backends share), the outbox and their sweeps run, in one place so a test can
/// read each one's `EXPLAIN QUERY PLAN` and prove that none scans `push_lease` or `push_wake`
/// (`Docs/VendoringPushRelay.md`, "Scale").
///
/// The quota count, the sweep and the prune narrow on the primary key's (origin, pubkey) prefix;
/// the claim reads the partial indexes of pending and sending rows in due order; the wake sweep
/// reads the expiry index.
package enum PushStatements {
  /// The wake columns, in the order `SQLiteWakeOutbox` reads them.
  package static let wakeColumns = """
    request_id, origin, pubkey, d, generation, key_id, endpoint, endpoint_hash, transport, event_id, \
    channel, class, expires_at, state, attempts, next_attempt_ms, fence_ms, last_status, dm_at_ms
    """

  // MARK: push_recent_event

  /// Recent events older than the back-fill window go.
  package static let pruneRecent = "DELETE FROM push_recent_event WHERE origin = ? AND received_at < ?"
  /// Whether an event was recorded (and matched) already.
  package static let recentExists = "SELECT 1 FROM push_recent_event WHERE origin = ? AND event_id = ?"
  /// Records a stored event.
  package static let insertRecent =
    "INSERT INTO push_recent_event (origin, event_id, received_at, event) VALUES (?, ?, ?, ?)"

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
  package static let all: [(name: String, sql: String)] =
    LeaseStatements.sqlite.planned + [
      ("pruneRecent", pruneRecent),
      ("recentExists", recentExists), ("insertRecent", insertRecent),
      ("recentCandidates", LeaseStatements.sqlite.recentCandidates),
      ("insertWake", insertWake), ("directQueued", directQueued), ("directRecent", directRecent),
      ("duePending", duePending), ("fencedSending", fencedSending),
      ("claimWake", claimWake), ("failWake", failWake), ("recordWake", recordWake),
      ("sweepWakes", sweepWakes),
    ]
}
