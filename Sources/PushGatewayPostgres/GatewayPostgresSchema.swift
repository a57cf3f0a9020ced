import _NostrPostgres

/// The gateway's PostgreSQL schema: ``PushGateway``'s SQLite tables with PostgreSQL types,
/// versioned in `gw_schema_version` and migrated under a session advisory lock of its own, so
/// gateway processes starting together on an empty database do not race.
enum GatewayPostgresSchema {
  /// The steps, recorded in `gw_schema_version` under advisory lock (28272, 2: the gateway's),
  /// applied by the package's one PostgreSQL migrator.
  static let migrator = PostgresMigrator(
    versionTable: "gw_schema_version", lockKey: 2,
    steps: [
      PostgresMigrator.Step("gateway tables", sql: migrations[0]),
      PostgresMigrator.Step("app attest keys and challenges", sql: migrations[1]),
    ])

  /// The steps' SQL, in order; step `i` (1-based) is recorded as version `i`.
  private static let migrations: [String] = [
    """
    CREATE TABLE gw_installation (
      handle text PRIMARY KEY,
      owner text NOT NULL,
      app_profile text NOT NULL,
      fingerprint text NOT NULL,
      sealed_token text NOT NULL,
      token_kid text NOT NULL,
      epoch bigint NOT NULL,
      invalid boolean NOT NULL DEFAULT false,
      invalid_at bigint,
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      revoked boolean NOT NULL DEFAULT false
    );
    CREATE UNIQUE INDEX gw_installation_fingerprint ON gw_installation (fingerprint) WHERE NOT revoked;
    CREATE INDEX gw_installation_owner ON gw_installation (owner, expires_at) WHERE NOT revoked;
    CREATE INDEX gw_installation_expiry ON gw_installation (expires_at);
    CREATE TABLE gw_delegation (
      handle text NOT NULL,
      relay_pubkey text NOT NULL,
      id text NOT NULL,
      generation bigint NOT NULL,
      expires_at bigint NOT NULL,
      revoked boolean NOT NULL DEFAULT false,
      PRIMARY KEY (handle, relay_pubkey)
    );
    CREATE UNIQUE INDEX gw_delegation_id ON gw_delegation (id);
    CREATE INDEX gw_delegation_expiry ON gw_delegation (expires_at);
    CREATE TABLE gw_request (
      relay_pubkey text NOT NULL,
      request_id text NOT NULL,
      kept boolean NOT NULL,
      status integer,
      body text,
      fence bigint NOT NULL,
      expires_at bigint NOT NULL,
      PRIMARY KEY (relay_pubkey, request_id)
    );
    CREATE INDEX gw_request_expiry ON gw_request (expires_at);
    CREATE TABLE gw_auth_id (
      id text PRIMARY KEY,
      expires_at bigint NOT NULL
    );
    CREATE INDEX gw_auth_id_expiry ON gw_auth_id (expires_at);
    CREATE TABLE gw_admission (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      fingerprint text NOT NULL,
      at bigint NOT NULL
    );
    CREATE INDEX gw_admission_fingerprint ON gw_admission (fingerprint, at);
    CREATE INDEX gw_admission_at ON gw_admission (at);
    CREATE TABLE gw_provider_token (
      slot text PRIMARY KEY,
      jwt text NOT NULL,
      issued_at bigint NOT NULL
    );
    """,
    // App Attest: challenges, and each installation's attested key and counter.
    """
    CREATE TABLE gw_attest_challenge (
      id text PRIMARY KEY,
      owner text NOT NULL,
      purpose text NOT NULL,
      challenge text NOT NULL,
      expires_at bigint NOT NULL
    );
    CREATE INDEX gw_attest_challenge_owner ON gw_attest_challenge (owner, expires_at);
    CREATE INDEX gw_attest_challenge_expiry ON gw_attest_challenge (expires_at);
    CREATE TABLE gw_attest_key (
      handle text PRIMARY KEY,
      key_id text NOT NULL,
      public_key text NOT NULL,
      receipt text NOT NULL,
      counter bigint NOT NULL
    );
    """,
  ]
}
