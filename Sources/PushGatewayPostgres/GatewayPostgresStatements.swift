/// Every statement ``PostgresPushGatewayStore`` runs (`$n` text parameters, prepared once per
/// connection).
enum GatewayPostgresStatements {
  static let burn = """
    INSERT INTO gw_auth_id (id, expires_at) VALUES ($1, $2)
    ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at WHERE gw_auth_id.expires_at <= $3
    """
  static let installationColumns =
    "handle, owner, app_profile, fingerprint, sealed_token, token_kid, epoch, invalid, invalid_at, expires_at, revoked"
  static let installationForUpdate =
    "SELECT \(installationColumns) FROM gw_installation WHERE handle = $1 FOR UPDATE"
  static let installationByFingerprint =
    "SELECT \(installationColumns) FROM gw_installation WHERE fingerprint = $1 AND NOT revoked FOR UPDATE"
  static let lockOwner = "SELECT pg_advisory_xact_lock(28272, hashtext($1))"
  static let ownerLiveCount =
    "SELECT COUNT(*) FROM gw_installation WHERE owner = $1 AND NOT revoked AND expires_at > $2"
  static let insertInstallation = """
    INSERT INTO gw_installation (handle, owner, app_profile, fingerprint, sealed_token, token_kid, epoch, \
    created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8) ON CONFLICT DO NOTHING
    """
  static let extendInstallation = "UPDATE gw_installation SET expires_at = $1 WHERE handle = $2"
  static let retireInstallation =
    "UPDATE gw_installation SET revoked = true, sealed_token = '' WHERE handle = $1"
  static let rotateInstallation = """
    UPDATE gw_installation SET fingerprint = $1, sealed_token = $2, token_kid = $3, epoch = epoch + 1, \
    invalid = false, invalid_at = NULL WHERE handle = $4
    """
  static let invalidateEpoch =
    "UPDATE gw_installation SET invalid = true, invalid_at = $1 WHERE handle = $2 AND epoch = $3"
  static let delegationColumns = "handle, relay_pubkey, id, generation, expires_at, revoked"
  static let delegationForUpdate =
    "SELECT \(delegationColumns) FROM gw_delegation WHERE handle = $1 AND relay_pubkey = $2 FOR UPDATE"
  static let delegationHandle = "SELECT handle FROM gw_delegation WHERE id = $1"
  static let delegationByIDForUpdate =
    "SELECT \(delegationColumns) FROM gw_delegation WHERE id = $1 FOR UPDATE"
  static let liveDelegationCount =
    "SELECT COUNT(*) FROM gw_delegation WHERE handle = $1 AND NOT revoked AND expires_at > $2"
  static let upsertDelegation = """
    INSERT INTO gw_delegation (handle, relay_pubkey, id, generation, expires_at, revoked) \
    VALUES ($1, $2, $3, $4, $5, false)
    ON CONFLICT (handle, relay_pubkey) DO UPDATE SET id = excluded.id, generation = excluded.generation, \
    expires_at = excluded.expires_at, revoked = false
    """
  static let revokeDelegation =
    "UPDATE gw_delegation SET revoked = true WHERE handle = $1 AND relay_pubkey = $2"
  static let revokeDelegations = "UPDATE gw_delegation SET revoked = true WHERE handle = $1"
  static let requestForUpdate =
    "SELECT kept, status, body, fence FROM gw_request WHERE relay_pubkey = $1 AND request_id = $2 FOR UPDATE"
  static let holdRequest = """
    INSERT INTO gw_request (relay_pubkey, request_id, kept, fence, expires_at) VALUES ($1, $2, false, $3, $4)
    ON CONFLICT (relay_pubkey, request_id) DO UPDATE SET kept = false, status = NULL, body = NULL, \
    fence = excluded.fence, expires_at = excluded.expires_at
    """
  static let keepRequest = """
    INSERT INTO gw_request (relay_pubkey, request_id, kept, status, body, fence, expires_at) \
    VALUES ($1, $2, true, $3, $4, 0, $5)
    ON CONFLICT (relay_pubkey, request_id) DO UPDATE SET kept = true, status = excluded.status, \
    body = excluded.body, fence = 0, expires_at = GREATEST(gw_request.expires_at, excluded.expires_at)
    """
  static let releaseRequest =
    "DELETE FROM gw_request WHERE relay_pubkey = $1 AND request_id = $2 AND NOT kept"
  static let admissionsSince = "SELECT COUNT(*), MIN(at) FROM gw_admission WHERE fingerprint = $1 AND at > $2"
  static let recordAdmission = "INSERT INTO gw_admission (fingerprint, at) VALUES ($1, $2)"
  static let providerToken = "SELECT jwt, issued_at FROM gw_provider_token WHERE slot = $1"
  static let providerTokenForUpdate =
    "SELECT jwt, issued_at FROM gw_provider_token WHERE slot = $1 FOR UPDATE"
  static let insertProviderToken =
    "INSERT INTO gw_provider_token (slot, jwt, issued_at) VALUES ($1, $2, $3) ON CONFLICT (slot) DO NOTHING"
  static let storeProviderToken = "UPDATE gw_provider_token SET jwt = $2, issued_at = $3 WHERE slot = $1"
  /// Up to 1000 expired installations (their rows locked first: installation → delegation).
  static let deleteExpiredInstallations = """
    DELETE FROM gw_installation WHERE handle IN \
    (SELECT handle FROM gw_installation WHERE expires_at < $1 LIMIT 1000) RETURNING handle
    """
  /// The delegations of deleted installations (`$1` a text array literal of hex handles).
  static let deleteDelegationsOf = "DELETE FROM gw_delegation WHERE handle = ANY($1::text[])"
  static let deleteExpiredDelegations = "DELETE FROM gw_delegation WHERE expires_at < $1"
  static let deleteExpiredRequests = "DELETE FROM gw_request WHERE expires_at < $1"
  static let deleteExpiredAuthIDs = "DELETE FROM gw_auth_id WHERE expires_at <= $1"
  static let deleteOldAdmissions = "DELETE FROM gw_admission WHERE at <= $1"

  // App Attest (the key and the receipt as hex text).
  static let ownerLiveChallenges =
    "SELECT COUNT(*) FROM gw_attest_challenge WHERE owner = $1 AND expires_at > $2"
  static let insertChallenge = """
    INSERT INTO gw_attest_challenge (id, owner, purpose, challenge, expires_at) VALUES ($1, $2, $3, $4, $5)
    """
  /// Consumes a challenge: one caller gets its row, whatever follows.
  static let consumeChallenge = """
    DELETE FROM gw_attest_challenge WHERE id = $1 RETURNING owner, purpose, challenge, expires_at
    """
  static let upsertAttestedKey = """
    INSERT INTO gw_attest_key (handle, key_id, public_key, receipt, counter) VALUES ($1, $2, $3, $4, 0)
    ON CONFLICT (handle) DO UPDATE SET key_id = excluded.key_id, public_key = excluded.public_key,
      receipt = excluded.receipt, counter = 0
    """
  static let attestedKey = "SELECT public_key, counter FROM gw_attest_key WHERE handle = $1"
  /// Raises the counter when the new one is above it (the row locked; a racing raise re-reads it).
  static let raiseCounter = "UPDATE gw_attest_key SET counter = $1 WHERE handle = $2 AND counter < $1"
  static let deleteExpiredChallenges = "DELETE FROM gw_attest_challenge WHERE expires_at <= $1"
  static let deleteAttestedKeysOf = "DELETE FROM gw_attest_key WHERE handle = ANY($1::text[])"
}
