import PushRelay

/// Every SQL statement the PostgreSQL store (beside `LeaseStatements.postgres`, the lease
/// statements both backends share), outbox and sweeper run, in one place, so that the query-plan
/// test reads the same text the code runs. Values are always `$n` parameters.
package enum PostgresStatements {
  /// The `push_wake` columns, in the order `PostgresWakeOutbox` reads them.
  package static let wakeColumns = """
    request_id, origin, pubkey, d, generation, key_id, endpoint, endpoint_hash, transport, event_id, \
    channel, class, expires_at, state, attempts, next_attempt_ms, fence_ms, last_status, dm_at_ms
    """

  // MARK: Locks (two-key advisory locks, class 28273 gates, 28274 the sweeper and 28275 a lease's
  // direct-message wakes; the author locks use the one-key space, which never overlaps the
  // two-key one)

  /// Accept: the transaction-scoped lock of (origin, pubkey), which makes `accept` serializable
  /// per author.
  package static let authorLock =
    "SELECT pg_advisory_xact_lock(hashtextextended($1::text || chr(10) || $2::text, 0))"
  /// Accept of an active lease: the origin's gate, exclusively (no `didStore` of the origin runs
  /// until the lease and its back-fill commit).
  package static let gateExclusive = "SELECT pg_advisory_xact_lock(28273, hashtext($1::text))"
  /// `didStore`: the origin's gate, shared (stores run together; an active accept waits).
  package static let gateShared = "SELECT pg_advisory_xact_lock_shared(28273, hashtext($1::text))"
  /// The one sweeper at a time: true when this transaction holds the sweep lock.
  package static let sweepLock = "SELECT pg_try_advisory_xact_lock(28274, 0)"

  // MARK: push_nip98_replay

  /// Deletes the replay ids whose expiry has passed.
  package static let pruneReplays = "DELETE FROM push_nip98_replay WHERE expires_at < $1::bigint"
  /// Burns an id until its expiry unless the table holds the capacity of live ids; an expired row
  /// of the same id (not pruned yet) is taken over. One row back when burnt.
  package static let burnReplay = """
    INSERT INTO push_nip98_replay (id, expires_at) \
    SELECT $1::text, $2::bigint \
    WHERE (SELECT count(*) FROM push_nip98_replay WHERE expires_at >= $3::bigint) < $4::bigint \
    ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at \
    WHERE push_nip98_replay.expires_at < $3::bigint \
    RETURNING 1
    """
  /// One row when the id is burnt and live.
  package static let liveReplay =
    "SELECT 1 FROM push_nip98_replay WHERE id = $1::text AND expires_at >= $2::bigint"

  // MARK: push_origin and push_lease_change

  /// The next change sequence of an origin; the row lock it takes is held to commit, so changes
  /// commit in sequence order and a reader that sees sequence n sees every change before it.
  package static let nextChange = """
    INSERT INTO push_origin (origin, lease_version) VALUES ($1, 1) \
    ON CONFLICT (origin) DO UPDATE SET lease_version = push_origin.lease_version + 1 \
    RETURNING lease_version
    """
  /// Logs a change of the live set at an address.
  package static let logChange =
    "INSERT INTO push_lease_change (origin, sequence, pubkey, d) VALUES ($1, $2, $3, $4)"
  /// The origin's last change sequence.
  package static let leaseVersion = "SELECT lease_version FROM push_origin WHERE origin = $1"
  /// The changes after a sequence, in order.
  package static let changesSince = """
    SELECT sequence, pubkey, d FROM push_lease_change WHERE origin = $1 AND sequence > $2 \
    ORDER BY sequence LIMIT $3
    """
  /// The protocol generation recorded for an origin.
  package static let originProtocol = "SELECT protocol FROM push_origin WHERE origin = $1"
  /// Whether an origin has any lease row.
  package static let originHasLeases = "SELECT EXISTS (SELECT 1 FROM push_lease WHERE origin = $1)"
  /// Records an origin's protocol generation.
  package static let bindProtocol = """
    INSERT INTO push_origin (origin, protocol) VALUES ($1, $2) \
    ON CONFLICT (origin) DO UPDATE SET protocol = excluded.protocol
    """

  // MARK: push_recent_event

  /// Records a stored event; answers a row only when it was not recorded yet.
  package static let insertRecent = """
    INSERT INTO push_recent_event (origin, event_id, kind, received_at, event) VALUES ($1, $2, $3, $4, $5) \
    ON CONFLICT (origin, event_id) DO NOTHING RETURNING 1
    """

  // MARK: push_wake

  /// Enqueue: the first row per (origin, endpoint hash, event id) wins. Due at the earlier of the
  /// caller's time and the database's, so a relay clock ahead of the database's never delays a new
  /// wake while claims run on the database clock (a test's manual clock in the past stays its own).
  /// A direct-message wake (`$15`, its due time; NULL for others) deferred past `$14` by the
  /// bound is due then.
  package static let insertWake = """
    INSERT INTO push_wake (request_id, origin, pubkey, d, generation, key_id, endpoint, endpoint_hash, \
    transport, event_id, channel, class, expires_at, state, attempts, next_attempt_ms, fence_ms, dm_at_ms) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', 0, \
    CASE WHEN $15::bigint > $14::bigint THEN $15::bigint \
    ELSE LEAST($14::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) END, 0, $15::bigint) \
    ON CONFLICT (origin, endpoint_hash, event_id) DO NOTHING RETURNING request_id
    """
  /// A direct-message enqueue: the transaction-scoped lock of the lease's address, so two
  /// processes bound one lease's direct-message wakes together.
  package static let directLock =
    "SELECT pg_advisory_xact_lock(28275, hashtext($1::text || chr(10) || $2::text || chr(10) || $3::text))"
  /// Whether a lease has a direct-message wake queued (`pending`).
  package static let directQueued = """
    SELECT 1 FROM push_wake WHERE origin = $1 AND pubkey = $2 AND d = $3 AND dm_at_ms IS NOT NULL \
    AND state = 'pending' LIMIT 1
    """
  /// The times of a lease's latest direct-message wakes after a moment, newest first.
  package static let directRecent = """
    SELECT dm_at_ms FROM push_wake WHERE origin = $1 AND pubkey = $2 AND d = $3 AND dm_at_ms IS NOT NULL \
    AND dm_at_ms > $4 ORDER BY dm_at_ms DESC LIMIT $5
    """
  /// Wakes the listeners of every process once the enqueue commits.
  package static let notifyWake = "SELECT pg_notify('push_wake', $1)"
  /// The database's clock in Unix milliseconds.
  package static let databaseNow = "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
  /// Pending rows that are due, earliest first, skipping rows another worker holds.
  package static let duePending = """
    SELECT \(wakeColumns) FROM push_wake WHERE state = 'pending' AND next_attempt_ms <= $1 \
    ORDER BY next_attempt_ms LIMIT $2 FOR UPDATE SKIP LOCKED
    """
  /// Sending rows whose fence passed, earliest first, skipping rows another worker holds.
  package static let fencedSending = """
    SELECT \(wakeColumns) FROM push_wake WHERE state = 'sending' AND fence_ms <= $1 \
    ORDER BY fence_ms LIMIT $2 FOR UPDATE SKIP LOCKED
    """
  /// Claims the rows of a batch (`$1` a text array of request ids, rows this transaction locked):
  /// each one more attempt, fenced until `$2`.
  package static let claimWakes = """
    UPDATE push_wake SET state = 'sending', attempts = attempts + 1, fence_ms = $2 \
    WHERE request_id = ANY($1::text[])
    """
  /// Fails the expired or fenced-out rows a claim found (`$1` a text array of request ids).
  package static let failWakes = "UPDATE push_wake SET state = 'failed' WHERE request_id = ANY($1::text[])"
  /// Writes a batch of outcomes, each only while its claim holds (`attempts` is the fence token):
  /// parallel arrays of request ids, states, next attempts, statuses and claimed attempts; answers
  /// the request ids written.
  package static let recordWakes = """
    UPDATE push_wake AS w SET state = u.state, next_attempt_ms = u.next, last_status = u.status \
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[], $5::integer[]) \
    AS u(request_id, state, next, status, attempts) \
    WHERE w.request_id = u.request_id AND w.state = 'sending' AND w.attempts = u.attempts \
    AND w.fence_ms > $6 RETURNING w.request_id
    """
  /// Every row in enqueue order, for tests and the demo.
  package static let allWakes = "SELECT \(wakeColumns) FROM push_wake ORDER BY enqueued LIMIT $1"

  // MARK: The sweeper

  /// Rows an hour past their expiry go (the caller subtracts the hour).
  package static let sweepWakes = "DELETE FROM push_wake WHERE expires_at <= $1"
  /// Recorded events older than the back-fill window go.
  package static let sweepRecent = "DELETE FROM push_recent_event WHERE received_at < $1"
  /// Inactive leases a day past their expiry go.
  package static let sweepInactive = "DELETE FROM push_lease WHERE NOT active AND expires_at < $1"
  /// Change-log rows more than a window behind their origin's last change go.
  package static let sweepChanges = """
    DELETE FROM push_lease_change c USING push_origin o \
    WHERE c.origin = o.origin AND c.sequence <= o.lease_version - $1
    """

  /// Every statement that touches `push_lease` or `push_wake`, by name, for the query-plan test.
  package static let planned: [(name: String, sql: String)] =
    LeaseStatements.postgres.planned + [
      ("insertWake", insertWake),
      ("directQueued", directQueued), ("directRecent", directRecent), ("duePending", duePending),
      ("fencedSending", fencedSending), ("claimWakes", claimWakes),
      ("failWakes", failWakes), ("recordWakes", recordWakes), ("sweepWakes", sweepWakes),
      ("sweepInactive", sweepInactive), ("originHasLeases", originHasLeases),
    ]
}
