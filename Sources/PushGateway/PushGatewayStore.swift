/// The gateway's state and its admission contract: installations, delegations, endpoint epochs
/// and their `invalid_at`, the `request_id` ledger, the quota counters per device fingerprint,
/// burned NIP-98 ids, the shared APNs provider token, and the reaper.
///
/// Each call is one transaction: it burns the request's NIP-98 id, checks, and writes, or it
/// writes nothing but the burn. A refusal is an answer (a case of the call's result), never an
/// error; an error (`storage_unavailable`) means the store could not be reached or failed, and the
/// gateway answers 503. An implementation for several processes (PostgreSQL) takes row locks in
/// the order installation → delegation in every call that touches both, so two calls never wait
/// on each other crosswise. ``SQLitePushGatewayStore`` is the default, for one process.
///
/// Device tokens reach the store only sealed (``StoredInstallation/sealedToken``) and as their
/// keyed fingerprints; the store never sees one in clear.
public protocol PushGatewayStore: Sendable {
  /// Registers an installation, or returns the owner's live one with the same fingerprint.
  func register(_ registration: InstallationRegistration) async throws(PushGatewayError)
    -> RegistrationResult
  /// Replaces a live installation's device token and raises its epoch.
  func rotateEndpoint(_ rotation: EndpointRotation) async throws(PushGatewayError) -> RotationResult
  /// Creates or replaces the delegation of (installation, relay).
  func delegate(_ delegation: DelegationRequest) async throws(PushGatewayError) -> DelegationResult
  /// Revokes the delegation of (installation, relay), or the whole installation when
  /// `relayPubkey` is nil.
  func revoke(_ revocation: RevocationRequest) async throws(PushGatewayError) -> RevocationResult
  /// Admits one delivery: the whole admission rule in one transaction.
  func admit(_ admission: DeliveryAdmission) async throws(PushGatewayError) -> AdmissionResult
  /// Records what became of an admitted delivery: its answer kept (replays get it again) or its
  /// `request_id` released; a 410 also marks the installation's epoch invalid.
  func finish(_ completion: DeliveryCompletion) async throws(PushGatewayError)
  /// The provider token stored under `slot`, nil when none is.
  func providerToken(slot: String) async throws(PushGatewayError) -> APNsProviderToken?
  /// Stores `new` under `slot` if it still holds `expected`; what it holds afterwards.
  func replaceProviderToken(slot: String, expected: APNsProviderToken?, with new: APNsProviderToken)
    async throws(PushGatewayError) -> APNsProviderToken
  /// Stores an App Attest challenge when the owner holds fewer than `maxLive` live ones (and,
  /// for a delegation challenge, the installation is the owner's and live).
  func issueChallenge(_ issue: AttestChallengeIssue) async throws(PushGatewayError) -> ChallengeIssueResult
  /// Consumes the challenge `id` (whatever follows) and returns its text when it is `owner`'s,
  /// for `purpose`, and live at `now`; nil otherwise.
  func consumeChallenge(id: String, owner: String, purpose: String, now: Int64) async throws(PushGatewayError)
    -> String?
  /// The App Attest state of `owner`'s live installation `handle`, nil for any other.
  func attestation(handle: String, owner: String, now: Int64) async throws(PushGatewayError)
    -> InstallationAttestation?
  /// Deletes rows past their use at `now`: expired or revoked installations and delegations,
  /// finished requests past their wake's expiry, NIP-98 ids out of the window, quota records
  /// older than an hour. Returns how many rows went. Only an optimisation: every check reads
  /// expiry itself.
  func reap(now: Int64) async throws(PushGatewayError) -> Int
}

/// The NIP-98 event id a request burns, and until when (Unix seconds).
public struct AuthBurn: Sendable, Hashable {
  /// The auth event's id, 64 lower-case hex digits.
  public var id: String
  /// When the id may be forgotten: its `created_at` has left the window by then.
  public var expiresAt: Int64

  /// A burn of `id` until `expiresAt`.
  public init(id: String, expiresAt: Int64) {
    self.id = id
    self.expiresAt = expiresAt
  }
}
