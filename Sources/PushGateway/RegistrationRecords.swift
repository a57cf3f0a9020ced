/// `POST /v1/installations`, validated and sealed.
public struct InstallationRegistration: Sendable, Hashable {
  /// The request's NIP-98 id.
  public var auth: AuthBurn
  /// The owner's public key (64 lower-case hex).
  public var owner: String
  /// The app profile.
  public var appProfile: String
  /// The token's fingerprints under every sealing key, the current key's first (stored).
  public var fingerprints: [String]
  /// A fresh handle, used when a new installation is made.
  public var newHandle: String
  /// The token sealed for `newHandle`.
  public var sealedToken: String
  /// The id of the key that sealed it.
  public var tokenKid: String
  /// The installation's expiry.
  public var expiresAt: Int64
  /// Now, Unix seconds.
  public var now: Int64
  /// The most live installations one owner may hold.
  public var maxPerOwner: Int
  /// The attested key to store with the installation (App Attest), nil without.
  public var attestedKey: AttestedKeyRecord? = nil

  /// A registration.
  public init(
    auth: AuthBurn, owner: String, appProfile: String, fingerprints: [String], newHandle: String,
    sealedToken: String, tokenKid: String, expiresAt: Int64, now: Int64, maxPerOwner: Int
  ) {
    self.auth = auth
    self.owner = owner
    self.appProfile = appProfile
    self.fingerprints = fingerprints
    self.newHandle = newHandle
    self.sealedToken = sealedToken
    self.tokenKid = tokenKid
    self.expiresAt = expiresAt
    self.now = now
    self.maxPerOwner = maxPerOwner
  }
}

/// What a registration became.
public enum RegistrationResult: Sendable, Hashable {
  /// A new installation (201).
  case created(handle: String, epoch: Int64, expiresAt: Int64)
  /// The owner's live installation with this token (200); its expiry is raised to the asked one
  /// when that is later.
  case existing(handle: String, epoch: Int64, expiresAt: Int64)
  /// Another owner holds a live installation with this token (409 `installation_conflict`).
  case conflict
  /// The owner holds the most live installations (429 `too_many_installations`).
  case tooMany
  /// The NIP-98 id was burned already (401 `invalid_auth`).
  case authReplayed
}

/// `POST /v1/installations/endpoint`, validated and sealed.
public struct EndpointRotation: Sendable, Hashable {
  /// The counter of the request's App Attest assertion, verified: stored only when above the
  /// installation's (in the same transaction), else `.assertionReplayed`; nil without App Attest.
  public var assertedCounter: Int64? = nil
  /// The request's NIP-98 id.
  public var auth: AuthBurn
  /// The owner.
  public var owner: String
  /// The installation.
  public var handle: String
  /// The new token's fingerprints under every sealing key (the current key's first), for each
  /// app profile: the store takes the installation's.
  public var fingerprintsByProfile: [String: [String]]
  /// The new token sealed for `handle`.
  public var sealedToken: String
  /// The id of the key that sealed it.
  public var tokenKid: String
  /// Now.
  public var now: Int64

  /// A rotation.
  public init(
    auth: AuthBurn, owner: String, handle: String, fingerprintsByProfile: [String: [String]],
    sealedToken: String, tokenKid: String, now: Int64
  ) {
    self.auth = auth
    self.owner = owner
    self.handle = handle
    self.fingerprintsByProfile = fingerprintsByProfile
    self.sealedToken = sealedToken
    self.tokenKid = tokenKid
    self.now = now
  }
}

/// What a rotation became.
public enum RotationResult: Sendable, Hashable {
  /// The new epoch; grants of older epochs no longer admit.
  case rotated(epoch: Int64)
  /// No live installation of this owner has this handle (404 `not_found`).
  case notFound
  /// Another live installation holds the new token (409 `installation_conflict`).
  case conflict
  /// The NIP-98 id was burned already.
  case authReplayed
  /// The App Attest counter did not rise above the stored one (401 `invalid_attestation`).
  case assertionReplayed
}

/// `POST /v1/delegations`, validated.
public struct DelegationRequest: Sendable, Hashable {
  /// The counter of the request's App Attest assertion, verified: stored only when above the
  /// installation's (in the same transaction), else `.assertionReplayed`; nil without App Attest.
  public var assertedCounter: Int64? = nil
  /// The request's NIP-98 id.
  public var auth: AuthBurn
  /// The owner.
  public var owner: String
  /// The installation.
  public var handle: String
  /// The relay key the grant is for.
  public var relayPubkey: String
  /// The generation asked; never below the stored one.
  public var generation: Int64
  /// The delegation's expiry; not after the installation's.
  public var expiresAt: Int64
  /// A fresh delegation id.
  public var newDelegationID: String
  /// Now.
  public var now: Int64
  /// The most live delegations one installation may hold.
  public var maxPerInstallation: Int

  /// A delegation request.
  public init(
    auth: AuthBurn, owner: String, handle: String, relayPubkey: String, generation: Int64, expiresAt: Int64,
    newDelegationID: String, now: Int64, maxPerInstallation: Int
  ) {
    self.auth = auth
    self.owner = owner
    self.handle = handle
    self.relayPubkey = relayPubkey
    self.generation = generation
    self.expiresAt = expiresAt
    self.newDelegationID = newDelegationID
    self.now = now
    self.maxPerInstallation = maxPerInstallation
  }
}

/// What a delegation request became.
public enum DelegationResult: Sendable, Hashable {
  /// The delegation, with what its grant seals.
  case delegated(delegationID: String, appProfile: String, epoch: Int64)
  /// No live installation of this owner has this handle.
  case notFound
  /// The stored generation is higher (409 `stale_generation`).
  case staleGeneration
  /// The delegation would outlive the installation (400 `invalid_request`).
  case outlivesInstallation
  /// The installation holds the most live delegations (429 `too_many_delegations`).
  case tooMany
  /// The NIP-98 id was burned already.
  case authReplayed
  /// The App Attest counter did not rise above the stored one (401 `invalid_attestation`).
  case assertionReplayed
}

/// `POST /v1/delegations/revoke` (with a relay) or `POST /v1/installations/revoke` (without).
public struct RevocationRequest: Sendable, Hashable {
  /// The counter of the request's App Attest assertion, verified: stored only when above the
  /// installation's (in the same transaction), else `.assertionReplayed`; nil without App Attest.
  public var assertedCounter: Int64? = nil
  /// The request's NIP-98 id.
  public var auth: AuthBurn
  /// The owner.
  public var owner: String
  /// The installation.
  public var handle: String
  /// The relay whose delegation goes; nil revokes the installation and all its delegations.
  public var relayPubkey: String?
  /// Now.
  public var now: Int64

  /// A revocation.
  public init(auth: AuthBurn, owner: String, handle: String, relayPubkey: String?, now: Int64) {
    self.auth = auth
    self.owner = owner
    self.handle = handle
    self.relayPubkey = relayPubkey
    self.now = now
  }
}

/// What a revocation became.
public enum RevocationResult: Sendable, Hashable {
  /// Revoked (also when it was revoked already).
  case revoked
  /// No installation of this owner has this handle.
  case notFound
  /// The NIP-98 id was burned already.
  case authReplayed
  /// The App Attest counter did not rise above the stored one (401 `invalid_attestation`).
  case assertionReplayed
}
