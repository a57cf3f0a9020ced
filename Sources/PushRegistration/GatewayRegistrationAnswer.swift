import NostrHTTP

/// How the gateway answered one registration request: one case per answer of its route table,
/// `Value` the body of a success.
///
/// Which answers a route gives: `register` 201 ``created`` / 200 ``done`` (the same owner's live
/// installation of that token) / 409 ``installationConflict`` / 429 ``tooManyInstallations``;
/// with App Attest, any route may also answer ``attestationRequired``, ``invalidAttestation`` or,
/// for its challenge, ``tooManyChallenges``;
/// `rotate` 200 / 404 / 409; `delegate` 201 / 404 / 409 ``staleGeneration`` / 429
/// ``tooManyDelegations`` / 403 ``relayNotAllowed``; `revoke` 200 / 404. Every route may answer
/// 401, 403 ``ownerNotAllowed``, 400/413 and 503.
public enum GatewayRegistrationAnswer<Value: Sendable & Hashable>: Sendable, Hashable {
  /// 201: created.
  case created(Value)
  /// 200: done (or the existing live installation given back).
  case done(Value)
  /// 409 `installation_conflict`: another owner holds a live installation of that token.
  case installationConflict
  /// 409 `stale_generation`: the delegation's generation is lower than the stored one.
  case staleGeneration
  /// 429 `too_many_installations`: the owner's cap of live installations.
  case tooManyInstallations
  /// 429 `too_many_delegations`: the installation's cap of live delegations.
  case tooManyDelegations
  /// 404 `not_found`: the handle is unknown or another owner's (the gateway never says which).
  case notFound
  /// 401: the gateway refused the NIP-98 authorization (clock skew, a replayed id, a wrong key).
  case unauthorized
  /// 401 `attestation_required`: the app requires App Attest and the request carried none (the
  /// registrar was made without an App Attest provider).
  case attestationRequired
  /// 401 `invalid_attestation`: the attestation or assertion failed a check (a used or expired
  /// challenge, another key, a counter that did not rise); the gateway's log names the step.
  case invalidAttestation
  /// 429 `too_many_challenges`: the owner holds the most live App Attest challenges.
  case tooManyChallenges
  /// 403 `owner_not_allowed`: the account key is not on the gateway's allowlist.
  case ownerNotAllowed
  /// 403 `relay_not_allowed`: the relay is not on the gateway's allowlist.
  case relayNotAllowed
  /// 400 or 413: the gateway refused the body (an unknown `app_profile`, an expiry too far).
  case invalidRequest(status: Int)
  /// 503: the gateway's store is down; try again later.
  case unavailable
  /// Any other answer, or a success whose body is not the route's (`error` is the body's
  /// `error` code when it had one, at most 64 bytes).
  case unexpected(status: Int, error: String?)
  /// No answer: refused, reset, cut short, or past the deadline.
  case unreachable(HTTPTransportError)
}

/// An installation: the handle the app keeps, the endpoint epoch and its expiry.
public struct GatewayInstallation: Sendable, Hashable {
  /// The opaque handle (32 lower-case hex digits).
  public let handle: String
  /// The endpoint epoch (1 at registration; each rotation adds one).
  public let endpointEpoch: Int64
  /// When the installation lapses, Unix seconds.
  public let expiresAt: Int64
}

/// The result of an endpoint rotation: the new epoch (grants of the old one stop working).
public struct GatewayEndpointRotation: Sendable, Hashable {
  /// The new endpoint epoch.
  public let endpointEpoch: Int64
}

/// A delegation: the sealed `g1.` grant to hand the relay, and its expiry.
public struct GatewayDelegation: Sendable, Hashable {
  /// The grant (`g1.<kid>.<payload>`), opaque to the app and the relay.
  public let endpointGrant: String
  /// When the grant lapses, Unix seconds.
  public let expiresAt: Int64
}

/// A revocation took effect (`{"status":"revoked"}`).
public struct GatewayRevocation: Sendable, Hashable {
  /// A revocation.
  public init() {}
}

extension GatewayRegistrationAnswer {
  /// This answer (a challenge's, not a success) as the answer of a route whose success is `Other`:
  /// a success here is not the route's, so it becomes ``unexpected(status:error:)``.
  func failure<Other: Sendable & Hashable>() -> GatewayRegistrationAnswer<Other> {
    switch self {
    case .created: return .unexpected(status: 201, error: nil)
    case .done: return .unexpected(status: 200, error: nil)
    case .installationConflict: return .installationConflict
    case .staleGeneration: return .staleGeneration
    case .tooManyInstallations: return .tooManyInstallations
    case .tooManyDelegations: return .tooManyDelegations
    case .notFound: return .notFound
    case .unauthorized: return .unauthorized
    case .attestationRequired: return .attestationRequired
    case .invalidAttestation: return .invalidAttestation
    case .tooManyChallenges: return .tooManyChallenges
    case .ownerNotAllowed: return .ownerNotAllowed
    case .relayNotAllowed: return .relayNotAllowed
    case .invalidRequest(let status): return .invalidRequest(status: status)
    case .unavailable: return .unavailable
    case .unexpected(let status, let error): return .unexpected(status: status, error: error)
    case .unreachable(let error): return .unreachable(error)
    }
  }
}
