import PushRelay
import _NostrPostgres

/// The PostgreSQL push schema: an ordered list of migrations recorded in `push_schema_version`,
/// applied under a session advisory lock so that processes starting together on an empty database
/// do not race.
///
/// The tables are SQLite's (`push_lease`, `push_wake`) with PostgreSQL types, plus what several
/// processes need: `push_recent_event` (the events `didStore` recorded, for back-fill and
/// idempotent matching), `push_origin` (per origin: `lease_version`, the last change sequence, and
/// the protocol generation) and `push_lease_change` (one row per change of an origin's live set, so
/// a process brings its in-memory index up to date by reading the changes since the last it saw).
enum PostgresSchema {
  /// The steps, recorded in `push_schema_version` under advisory lock (28272, 1), applied by the
  /// package's one PostgreSQL migrator.
  static let migrator = PostgresMigrator(
    versionTable: "push_schema_version", lockKey: 1,
    steps: zip(stepNames, migrations).map { PostgresMigrator.Step($0, sql: $1) })

  /// The steps' names, one per entry of `migrations`.
  private static let stepNames = ["push tables", "nip98 replay", "direct-message wake bound"]

  /// The steps' SQL, in order; step `i` (1-based) is recorded as version `i`.
  private static let migrations: [String] = [
    """
    CREATE TABLE push_lease (
      origin text NOT NULL,
      pubkey text NOT NULL,
      d text NOT NULL,
      event_id text NOT NULL,
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      key_id text NOT NULL,
      generation bigint NOT NULL,
      active boolean NOT NULL,
      endpoint_enabled boolean NOT NULL,
      app_profile text,
      transport text,
      endpoint text,
      endpoint_hash text,
      subscriptions text,
      event text NOT NULL,
      PRIMARY KEY (origin, pubkey, d),
      CONSTRAINT push_lease_event UNIQUE (origin, event_id)
    );
    CREATE UNIQUE INDEX push_lease_endpoint ON push_lease (origin, pubkey, app_profile, endpoint_hash)
      WHERE active;
    CREATE INDEX push_lease_live ON push_lease (origin, expires_at) WHERE active AND endpoint_enabled;
    CREATE INDEX push_lease_inactive ON push_lease (expires_at) WHERE NOT active;
    CREATE TABLE push_wake (
      request_id text PRIMARY KEY,
      origin text NOT NULL,
      pubkey text NOT NULL,
      d text NOT NULL,
      generation bigint NOT NULL,
      key_id text NOT NULL,
      endpoint text NOT NULL,
      endpoint_hash text NOT NULL,
      transport text NOT NULL,
      event_id text NOT NULL,
      channel text,
      class text NOT NULL,
      expires_at bigint NOT NULL,
      state text NOT NULL,
      attempts integer NOT NULL,
      next_attempt_ms bigint NOT NULL,
      fence_ms bigint NOT NULL,
      last_status integer,
      enqueued bigint GENERATED ALWAYS AS IDENTITY,
      CONSTRAINT push_wake_once UNIQUE (origin, endpoint_hash, event_id)
    );
    CREATE INDEX push_wake_pending ON push_wake (next_attempt_ms) WHERE state = 'pending';
    CREATE INDEX push_wake_sending ON push_wake (fence_ms) WHERE state = 'sending';
    CREATE INDEX push_wake_expiry ON push_wake (expires_at);
    CREATE INDEX push_wake_enqueued ON push_wake (enqueued);
    CREATE TABLE push_recent_event (
      origin text NOT NULL,
      event_id text NOT NULL,
      kind integer NOT NULL,
      received_at bigint NOT NULL,
      event text NOT NULL,
      PRIMARY KEY (origin, event_id)
    );
    CREATE INDEX push_recent_event_received ON push_recent_event (origin, received_at);
    CREATE INDEX push_recent_event_age ON push_recent_event (received_at);
    CREATE TABLE push_origin (
      origin text PRIMARY KEY,
      lease_version bigint NOT NULL DEFAULT 0,
      protocol text
    );
    CREATE TABLE push_lease_change (
      origin text NOT NULL,
      sequence bigint NOT NULL,
      pubkey text NOT NULL,
      d text NOT NULL,
      PRIMARY KEY (origin, sequence)
    );
    """,
    // 2: NIP-98 ids burnt by every process of the database (`Docs/Robustness.md`), each until its
    // event's created_at leaves the verifier's window.
    """
    CREATE TABLE push_nip98_replay (
      id text PRIMARY KEY,
      expires_at bigint NOT NULL
    );
    CREATE INDEX push_nip98_replay_expiry ON push_nip98_replay (expires_at);
    """,
    // 3: direct-message wakes bounded per lease (`Docs/Robustness.md`): the time each was due, NULL
    // for other wakes.
    """
    ALTER TABLE push_wake ADD COLUMN dm_at_ms bigint;
    CREATE INDEX push_wake_direct ON push_wake (origin, pubkey, d, dm_at_ms) WHERE dm_at_ms IS NOT NULL;
    """,
  ]
}
