/// Every statement ``SQLitePushGatewayStore`` runs, in one place, so a test can read each one's
/// `EXPLAIN QUERY PLAN` and prove that none scans a table.
package enum GatewayStatements {
  /// The schema steps, in order (the one migrator records them in `PRAGMA user_version`).
  static let migrations: [(name: String, sql: String)] = [
    (
      "gateway tables",
      """
      CREATE TABLE gw_installation (
        handle TEXT PRIMARY KEY NOT NULL,
        owner TEXT NOT NULL,
        app_profile TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        sealed_token TEXT NOT NULL,
        token_kid TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        invalid INTEGER NOT NULL DEFAULT 0,
        invalid_at INTEGER,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX gw_installation_fingerprint ON gw_installation (fingerprint) WHERE revoked = 0;
      CREATE INDEX gw_installation_owner ON gw_installation (owner, expires_at) WHERE revoked = 0;
      CREATE INDEX gw_installation_expiry ON gw_installation (expires_at);
      CREATE TABLE gw_delegation (
        handle TEXT NOT NULL,
        relay_pubkey TEXT NOT NULL,
        id TEXT NOT NULL,
        generation INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (handle, relay_pubkey)
      );
      CREATE UNIQUE INDEX gw_delegation_id ON gw_delegation (id);
      CREATE INDEX gw_delegation_expiry ON gw_delegation (expires_at);
      CREATE TABLE gw_request (
        relay_pubkey TEXT NOT NULL,
        request_id TEXT NOT NULL,
        kept INTEGER NOT NULL,
        status INTEGER,
        body BLOB,
        fence INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (relay_pubkey, request_id)
      );
      CREATE INDEX gw_request_expiry ON gw_request (expires_at);
      CREATE TABLE gw_auth_id (
        id TEXT PRIMARY KEY NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX gw_auth_id_expiry ON gw_auth_id (expires_at);
      CREATE TABLE gw_admission (
        seq INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX gw_admission_fingerprint ON gw_admission (fingerprint, at);
      CREATE INDEX gw_admission_at ON gw_admission (at);
      CREATE TABLE gw_provider_token (
        slot TEXT PRIMARY KEY NOT NULL,
        jwt TEXT NOT NULL,
        issued_at INTEGER NOT NULL
      );
      """
    ),
    (
      "app attest",
      """
      CREATE TABLE gw_attest_challenge (
        id TEXT PRIMARY KEY NOT NULL,
        owner TEXT NOT NULL,
        purpose TEXT NOT NULL,
        challenge TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX gw_attest_challenge_owner ON gw_attest_challenge (owner, expires_at);
      CREATE INDEX gw_attest_challenge_expiry ON gw_attest_challenge (expires_at);
      CREATE TABLE gw_attest_key (
        handle TEXT PRIMARY KEY NOT NULL,
        key_id TEXT NOT NULL,
        public_key BLOB NOT NULL,
        receipt BLOB NOT NULL,
        counter INTEGER NOT NULL
      );
      """
    ),
  ]

  // MARK: NIP-98 ids

  /// Burns an id, or refreshes one whose time has passed; no change means it is live (a replay).
  static let burn = """
    INSERT INTO gw_auth_id (id, expires_at) VALUES (?, ?)
    ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at WHERE gw_auth_id.expires_at <= ?
    """

  // MARK: Installations

  /// The columns ``installation`` reads, in order.
  static let installationColumns =
    "handle, owner, app_profile, fingerprint, sealed_token, token_kid, epoch, invalid, invalid_at, expires_at, revoked"
  /// One installation by handle.
  static let installation = "SELECT \(installationColumns) FROM gw_installation WHERE handle = ?"
  /// The unrevoked installation holding a fingerprint.
  static let installationByFingerprint =
    "SELECT \(installationColumns) FROM gw_installation WHERE fingerprint = ? AND revoked = 0"
  /// An owner's live installations.
  static let ownerLiveCount =
    "SELECT COUNT(*) FROM gw_installation WHERE owner = ? AND revoked = 0 AND expires_at > ?"
  /// A new installation at epoch 1.
  static let insertInstallation = """
    INSERT INTO gw_installation (handle, owner, app_profile, fingerprint, sealed_token, token_kid, epoch, \
    created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)
    """
  /// Raises an installation's expiry.
  static let extendInstallation = "UPDATE gw_installation SET expires_at = ? WHERE handle = ?"
  /// Retires an installation: revoked, its sealed token dropped.
  static let retireInstallation = "UPDATE gw_installation SET revoked = 1, sealed_token = '' WHERE handle = ?"
  /// A new device token at the next epoch, valid again.
  static let rotateInstallation = """
    UPDATE gw_installation SET fingerprint = ?, sealed_token = ?, token_kid = ?, epoch = epoch + 1, \
    invalid = 0, invalid_at = NULL WHERE handle = ?
    """
  /// Marks an epoch invalid (APNs answered 410).
  static let invalidateEpoch =
    "UPDATE gw_installation SET invalid = 1, invalid_at = ? WHERE handle = ? AND epoch = ?"

  // MARK: Delegations

  /// The columns ``delegation`` and ``delegationByID`` read, in order.
  static let delegationColumns = "handle, relay_pubkey, id, generation, expires_at, revoked"
  /// The delegation of (installation, relay).
  static let delegation =
    "SELECT \(delegationColumns) FROM gw_delegation WHERE handle = ? AND relay_pubkey = ?"
  /// A delegation by id.
  static let delegationByID = "SELECT \(delegationColumns) FROM gw_delegation WHERE id = ?"
  /// An installation's live delegations.
  static let liveDelegationCount =
    "SELECT COUNT(*) FROM gw_delegation WHERE handle = ? AND revoked = 0 AND expires_at > ?"
  /// Creates or replaces the delegation of (installation, relay).
  static let upsertDelegation = """
    INSERT INTO gw_delegation (handle, relay_pubkey, id, generation, expires_at, revoked) VALUES (?, ?, ?, ?, ?, 0)
    ON CONFLICT (handle, relay_pubkey) DO UPDATE SET id = excluded.id, generation = excluded.generation, \
    expires_at = excluded.expires_at, revoked = 0
    """
  /// Revokes one delegation.
  static let revokeDelegation = "UPDATE gw_delegation SET revoked = 1 WHERE handle = ? AND relay_pubkey = ?"
  /// Revokes every delegation of an installation.
  static let revokeDelegations = "UPDATE gw_delegation SET revoked = 1 WHERE handle = ?"

  // MARK: The request ledger and the quota

  /// One request's ledger row.
  static let request =
    "SELECT kept, status, body, fence FROM gw_request WHERE relay_pubkey = ? AND request_id = ?"
  /// Holds a request in flight (new, or taking over one whose holder's time passed).
  static let holdRequest = """
    INSERT INTO gw_request (relay_pubkey, request_id, kept, fence, expires_at) VALUES (?, ?, 0, ?, ?)
    ON CONFLICT (relay_pubkey, request_id) DO UPDATE SET kept = 0, status = NULL, body = NULL, \
    fence = excluded.fence, expires_at = excluded.expires_at
    """
  /// Keeps a request with its answer.
  static let keepRequest = """
    INSERT INTO gw_request (relay_pubkey, request_id, kept, status, body, fence, expires_at) VALUES (?, ?, 1, ?, ?, 0, ?)
    ON CONFLICT (relay_pubkey, request_id) DO UPDATE SET kept = 1, status = excluded.status, body = excluded.body, \
    fence = 0, expires_at = max(gw_request.expires_at, excluded.expires_at)
    """
  /// Releases a request still in flight.
  static let releaseRequest = "DELETE FROM gw_request WHERE relay_pubkey = ? AND request_id = ? AND kept = 0"
  /// A fingerprint's admissions since a moment, and the oldest of them.
  static let admissionsSince = "SELECT COUNT(*), MIN(at) FROM gw_admission WHERE fingerprint = ? AND at > ?"
  /// Records one admission.
  static let recordAdmission = "INSERT INTO gw_admission (fingerprint, at) VALUES (?, ?)"

  // MARK: Provider tokens

  /// The token in a slot.
  static let providerToken = "SELECT jwt, issued_at FROM gw_provider_token WHERE slot = ?"
  /// Stores a token in a slot.
  static let storeProviderToken = """
    INSERT INTO gw_provider_token (slot, jwt, issued_at) VALUES (?, ?, ?)
    ON CONFLICT (slot) DO UPDATE SET jwt = excluded.jwt, issued_at = excluded.issued_at
    """

  // MARK: App Attest

  /// How many live challenges an owner holds.
  static let ownerLiveChallenges =
    "SELECT COUNT(*) FROM gw_attest_challenge WHERE owner = ? AND expires_at > ?"
  /// Stores a challenge.
  static let insertChallenge = """
    INSERT INTO gw_attest_challenge (id, owner, purpose, challenge, expires_at) VALUES (?, ?, ?, ?, ?)
    """
  /// A challenge's owner, purpose, text and expiry.
  static let challenge = "SELECT owner, purpose, challenge, expires_at FROM gw_attest_challenge WHERE id = ?"
  /// Consumes a challenge.
  static let deleteChallenge = "DELETE FROM gw_attest_challenge WHERE id = ?"
  /// Stores (or replaces) an installation's attested key, counter 0.
  static let upsertAttestedKey = """
    INSERT INTO gw_attest_key (handle, key_id, public_key, receipt, counter) VALUES (?, ?, ?, ?, 0)
    ON CONFLICT (handle) DO UPDATE SET key_id = excluded.key_id, public_key = excluded.public_key,
      receipt = excluded.receipt, counter = 0
    """
  /// An installation's attested key and counter.
  static let attestedKey = "SELECT public_key, counter FROM gw_attest_key WHERE handle = ?"
  /// Raises the counter when the new one is above it; no change means it did not rise.
  static let raiseCounter = "UPDATE gw_attest_key SET counter = ? WHERE handle = ? AND counter < ?"
  /// Deletes expired challenges.
  static let deleteExpiredChallenges = "DELETE FROM gw_attest_challenge WHERE expires_at <= ?"
  /// Deletes an installation's attested key.
  static let deleteAttestedKey = "DELETE FROM gw_attest_key WHERE handle = ?"

  // MARK: The reaper

  /// Expired installations' handles.
  static let expiredInstallations = "SELECT handle FROM gw_installation WHERE expires_at < ? LIMIT 1000"
  /// Deletes one installation.
  static let deleteInstallation = "DELETE FROM gw_installation WHERE handle = ?"
  /// Deletes an installation's delegations.
  static let deleteDelegationsOf = "DELETE FROM gw_delegation WHERE handle = ?"
  /// Deletes expired delegations.
  static let deleteExpiredDelegations = "DELETE FROM gw_delegation WHERE expires_at < ?"
  /// Deletes requests past their wake.
  static let deleteExpiredRequests = "DELETE FROM gw_request WHERE expires_at < ?"
  /// Deletes NIP-98 ids out of the window.
  static let deleteExpiredAuthIDs = "DELETE FROM gw_auth_id WHERE expires_at <= ?"
  /// Deletes quota records older than the longest window.
  static let deleteOldAdmissions = "DELETE FROM gw_admission WHERE at <= ?"

  /// Every statement with its name, for the query-plan test.
  package static let all: [(name: String, sql: String)] = [
    ("burn", burn), ("installation", installation), ("installationByFingerprint", installationByFingerprint),
    ("ownerLiveCount", ownerLiveCount), ("insertInstallation", insertInstallation),
    ("extendInstallation", extendInstallation), ("retireInstallation", retireInstallation),
    ("rotateInstallation", rotateInstallation), ("invalidateEpoch", invalidateEpoch),
    ("delegation", delegation), ("delegationByID", delegationByID),
    ("liveDelegationCount", liveDelegationCount),
    ("upsertDelegation", upsertDelegation), ("revokeDelegation", revokeDelegation),
    ("revokeDelegations", revokeDelegations), ("request", request), ("holdRequest", holdRequest),
    ("keepRequest", keepRequest), ("releaseRequest", releaseRequest), ("admissionsSince", admissionsSince),
    ("recordAdmission", recordAdmission), ("providerToken", providerToken),
    ("storeProviderToken", storeProviderToken), ("expiredInstallations", expiredInstallations),
    ("deleteInstallation", deleteInstallation), ("deleteDelegationsOf", deleteDelegationsOf),
    ("deleteExpiredDelegations", deleteExpiredDelegations), ("deleteExpiredRequests", deleteExpiredRequests),
    ("deleteExpiredAuthIDs", deleteExpiredAuthIDs), ("deleteOldAdmissions", deleteOldAdmissions),
    ("ownerLiveChallenges", ownerLiveChallenges), ("insertChallenge", insertChallenge),
    ("challenge", challenge),
    ("deleteChallenge", deleteChallenge), ("upsertAttestedKey", upsertAttestedKey),
    ("attestedKey", attestedKey),
    ("raiseCounter", raiseCounter), ("deleteExpiredChallenges", deleteExpiredChallenges),
    ("deleteAttestedKey", deleteAttestedKey),
  ]
}
