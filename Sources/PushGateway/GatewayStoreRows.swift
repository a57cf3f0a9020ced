/// One installation row as both gateway stores read it (SQLite and PostgreSQL select the same
/// columns in the same order; each store only says how its driver spells a value).
package struct GatewayInstallationRow: Sendable {
  /// The opaque handle.
  package var handle: String
  /// The owner's pubkey.
  package var owner: String
  /// The app profile.
  package var appProfile: String
  /// The device token's fingerprint under the current key.
  package var fingerprint: String
  /// The sealed device token.
  package var sealedToken: String
  /// The id of the key that sealed it.
  package var tokenKid: String
  /// The endpoint epoch.
  package var epoch: Int64
  /// Whether APNs called the epoch's token dead.
  package var invalid: Bool
  /// When APNs said it became dead, if it said.
  package var invalidAt: Int64?
  /// The installation's expiry.
  package var expiresAt: Int64
  /// Whether the owner revoked it.
  package var revoked: Bool

  /// A row with these values.
  package init(
    handle: String, owner: String, appProfile: String, fingerprint: String, sealedToken: String,
    tokenKid: String, epoch: Int64, invalid: Bool, invalidAt: Int64?, expiresAt: Int64, revoked: Bool
  ) {
    self.handle = handle
    self.owner = owner
    self.appProfile = appProfile
    self.fingerprint = fingerprint
    self.sealedToken = sealedToken
    self.tokenKid = tokenKid
    self.epoch = epoch
    self.invalid = invalid
    self.invalidAt = invalidAt
    self.expiresAt = expiresAt
    self.revoked = revoked
  }

  /// Whether it serves at `now`: not revoked, not expired.
  package func isLive(at now: Int64) -> Bool { !revoked && expiresAt > now }
}

/// One delegation row as both gateway stores read it.
package struct GatewayDelegationRow: Sendable {
  /// The installation it delegates.
  package var handle: String
  /// The relay key the grant is for.
  package var relayPubkey: String
  /// The delegation id (in the grant).
  package var id: String
  /// The generation.
  package var generation: Int64
  /// The delegation's expiry.
  package var expiresAt: Int64
  /// Whether it was revoked.
  package var revoked: Bool

  /// A row with these values.
  package init(
    handle: String, relayPubkey: String, id: String, generation: Int64, expiresAt: Int64, revoked: Bool
  ) {
    self.handle = handle
    self.relayPubkey = relayPubkey
    self.id = id
    self.generation = generation
    self.expiresAt = expiresAt
    self.revoked = revoked
  }

  /// Whether it serves at `now`: not revoked, not expired.
  package func isLive(at now: Int64) -> Bool { !revoked && expiresAt > now }
}
