import _NostrSQLite

/// The cache's tables as an ordered list of forward-only migrations.
///
/// Migration `n` (1-based) moves the file from `user_version` n−1 to n; each runs once, inside the
/// same `BEGIN IMMEDIATE` transaction as the version bump. A file whose version is above
/// `currentVersion` comes from a newer library and is refused without being changed.
enum CacheSchema {
  /// The version this library writes.
  static var currentVersion: Int64 { migrator.latestVersion }

  /// The schema steps, applied by the package's one migrator.
  static let migrator = SQLiteMigrator<CacheError>(
    [
      SQLiteMigration("records", sql: migrations[0]), SQLiteMigration("two-phase claims", sql: migrations[1]),
    ],
    newerSchema: { found, known in
      CacheError(
        code: .newerSchema, field: "user_version",
        message: "the file has schema version \(found); this library knows up to \(known)")
    })

  /// Every step's SQL in order; append, never edit.
  static let migrations: [String] = [
    """
    CREATE TABLE accounts(
      account TEXT PRIMARY KEY,
      removed INTEGER NOT NULL,
      changed_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE profiles(
      account TEXT NOT NULL, relay TEXT NOT NULL, pubkey TEXT NOT NULL,
      display_name TEXT, picture TEXT,
      event_id TEXT NOT NULL, created_at INTEGER NOT NULL, fetched_at INTEGER NOT NULL,
      PRIMARY KEY(account, relay, pubkey)
    );
    CREATE INDEX profiles_fetched ON profiles(fetched_at);
    CREATE TABLE channels(
      account TEXT NOT NULL, relay TEXT NOT NULL, channel_id TEXT NOT NULL,
      name TEXT, type TEXT, signer TEXT NOT NULL,
      event_id TEXT NOT NULL, created_at INTEGER NOT NULL, fetched_at INTEGER NOT NULL,
      PRIMARY KEY(account, relay, channel_id)
    );
    CREATE INDEX channels_fetched ON channels(fetched_at);
    CREATE TABLE memberships(
      account TEXT NOT NULL, relay TEXT NOT NULL, channel_id TEXT NOT NULL,
      members BLOB NOT NULL, member_count INTEGER NOT NULL, signer TEXT NOT NULL,
      event_id TEXT NOT NULL, created_at INTEGER NOT NULL, fetched_at INTEGER NOT NULL,
      PRIMARY KEY(account, relay, channel_id)
    );
    CREATE INDEX memberships_fetched ON memberships(fetched_at);
    CREATE TABLE avatars(
      account TEXT NOT NULL, relay TEXT NOT NULL, pubkey TEXT NOT NULL,
      url TEXT NOT NULL, content_type TEXT NOT NULL, bytes BLOB NOT NULL,
      etag TEXT, last_modified TEXT, fetched_at INTEGER NOT NULL, used_at INTEGER NOT NULL,
      PRIMARY KEY(account, relay, pubkey)
    );
    CREATE INDEX avatars_used ON avatars(used_at);
    CREATE TABLE deliveries(
      account TEXT NOT NULL, relay TEXT NOT NULL, event_id TEXT NOT NULL,
      delivered_at INTEGER NOT NULL,
      PRIMARY KEY(account, relay, event_id)
    );
    CREATE INDEX deliveries_time ON deliveries(delivered_at);
    """,
    // Two-phase claims keyed by message id per file (one device): a claim with its expiry, then
    // its presentation. Rows of version 1 were claimed and shown at once: they become presented.
    """
    CREATE TABLE claims(
      message_id TEXT PRIMARY KEY,
      account TEXT NOT NULL, relay TEXT NOT NULL,
      claimed_at INTEGER NOT NULL, claim_expires_at INTEGER NOT NULL, presented_at INTEGER
    ) WITHOUT ROWID;
    INSERT INTO claims(message_id, account, relay, claimed_at, claim_expires_at, presented_at)
      SELECT event_id, min(account), min(relay), min(delivered_at), min(delivered_at), min(delivered_at)
      FROM deliveries GROUP BY event_id;
    DROP TABLE deliveries;
    ALTER TABLE claims RENAME TO deliveries;
    CREATE INDEX deliveries_claimed ON deliveries(claimed_at);
    CREATE INDEX deliveries_account ON deliveries(account);
    """,
  ]

  /// The tables holding per-account rows, in the order an account removal deletes them.
  static let accountTables = ["avatars", "profiles", "memberships", "channels", "deliveries"]
}
