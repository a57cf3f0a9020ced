import AppAttest
import NostrEvent
import NostrJSON
import NostrPushCore

/// App Attest on the registration routes, for the apps configured with it (`appAttest`):
/// challenges, the installation's attestation, and an assertion on each route that changes an
/// installation or a delegation (the App Attest routes of the gateway).
///
/// Decisions where the spec is silent:
/// - A challenge answers 201 `{"challenge_id","challenge","expires_at"}`; its purpose is
///   `installation:<app profile>` or `delegation:<handle>`, and only a request of the same owner
///   and purpose consumes it (any other use consumes it too, and fails).
/// - Apps without App Attest refuse the challenge routes and the App Attest members with 400
///   `invalid_request`; at most 8 live challenges per owner (429 `too_many_challenges`).
/// - An installation registered before its app required App Attest has no key: its asserted
///   routes answer 401 `invalid_attestation` until it registers again with an attestation.
/// - Re-registering the same token with a new attestation replaces the stored key (counter 0).
/// - An assertion's counter is stored in the route's transaction right after the installation is
///   found, so a request the route then refuses (a stale generation, say) has still spent it.
/// - The challenge is consumed before the route's NIP-98 id is burned: a refused attestation
///   leaves the id unburned, but its challenge is gone, so a replay fails all the same.
extension PushGateway {
  /// The members an attested installation adds to its body.
  static let attestationFields: Set<String> = ["challenge_id", "key_id", "attestation"]
  /// The members an asserted route adds to its body.
  static let assertionFields: Set<String> = ["challenge_id", "assertion"]

  /// What the App Attest check of a request found.
  enum AppAttestCheck {
    /// The app does not require App Attest, and the request carries none.
    case notRequired
    /// The attestation verified: store this key.
    case attested(AttestedKeyRecord)
    /// The assertion verified: store this counter, if it rises, in the route's transaction.
    case asserted(counter: Int64)
    /// Refused with this reply.
    case refused(GatewayReply)
  }

  /// `POST /v1/installations/challenges` (`{"v":1,"app_profile"}`) and
  /// `POST /v1/delegations/challenges` (`{"v":1,"installation_handle"}`).
  func issueChallenge(_ bytes: [UInt8], event: Event, now: Int64, delegation: Bool)
    async throws(PushGatewayError)
    -> GatewayReply
  {
    let purpose: String
    var handle: String? = nil
    if delegation {
      guard let body = GatewayRequestBody(bytes, required: ["v", "installation_handle"]),
        let found = body.handle
      else { return .invalidRequest }
      guard !appAttest.isEmpty else { return .invalidRequest }
      purpose = "delegation:" + found
      handle = found
    } else {
      guard let body = GatewayRequestBody(bytes, required: ["v", "app_profile"]),
        let profile = body.string("app_profile"), appAttest[profile] != nil
      else { return .invalidRequest }
      purpose = "installation:" + profile
    }
    let challenge = AppAttestChallenge.issue(now: now)
    let result = try await store.issueChallenge(
      AttestChallengeIssue(
        auth: burn(event, now: now), owner: event.pubkey, purpose: purpose, handle: handle,
        challenge: challenge,
        now: now, maxLive: AppAttestChallenge.maxLivePerOwner))
    switch result {
    case .issued:
      return .object(
        201,
        JSONObject([
          "challenge_id": .string(challenge.id), "challenge": .string(challenge.challenge),
          "expires_at": .integer(challenge.expiresAt),
        ]))
    case .tooMany: return .error(429, "too_many_challenges")
    case .notFound: return .notFound
    case .authReplayed: return .invalidAuth
    }
  }

  /// The attestation of `POST /v1/installations` for `profile`: the challenge consumed, the
  /// transcript rebuilt, the attestation verified at `now`.
  func checkAttestation(
    _ body: GatewayRequestBody, profile: String, endpoint: String, expiresAt: Int64, event: Event, now: Int64
  ) async throws(PushGatewayError) -> AppAttestCheck {
    let given = Self.attestationFields.filter { body.has($0) }
    guard let verifier = appAttest[profile] else {
      return given.isEmpty ? .notRequired : .refused(.invalidRequest)
    }
    guard given == Self.attestationFields, let challengeID = body.string("challenge_id"),
      let keyIDText = body.string("key_id"), let attestationText = body.string("attestation")
    else { return .refused(.attestationRequired) }
    guard AppAttestChallenge.isID(challengeID),
      let challenge = try await store.consumeChallenge(
        id: challengeID, owner: event.pubkey, purpose: "installation:" + profile, now: now)
    else { return refusal("the challenge is unknown, used, expired or another's") }
    guard let keyID = AppAttestBase64.decode(keyIDText),
      let attestation = AppAttestBase64.decode(attestationText)
    else { return refusal("key_id or attestation is not base64") }
    do throws(AppAttestError) {
      let transcript = try AppAttestTranscript.installation(
        publicURL: publicURL, appProfile: profile, challenge: challenge, endpoint: endpoint,
        expiresAt: expiresAt,
        owner: event.pubkey)
      let key = try verifier.verifyAttestation(
        attestation, keyID: keyID, clientDataHash: transcript.clientDataHash, at: now)
      return .attested(
        AttestedKeyRecord(keyID: Hex.encode(key.keyID), publicKey: key.publicKey, receipt: key.receipt))
    } catch {
      return refusal("attestation failed at \(error.code)")
    }
  }

  /// The assertion of an asserted `route` on `handle`: the installation's app decides whether
  /// one is required; the challenge consumed, the transcript rebuilt from the body, the
  /// assertion verified above the stored counter.
  func checkAssertion(
    _ body: GatewayRequestBody, route: AppAttestRoute, handle: String, event: Event, now: Int64
  ) async throws(PushGatewayError) -> AppAttestCheck {
    let given = Self.assertionFields.filter { body.has($0) }
    guard !appAttest.isEmpty else { return given.isEmpty ? .notRequired : .refused(.invalidRequest) }
    // A handle that is not the owner's live installation goes on to the route's own 404.
    guard let state = try await store.attestation(handle: handle, owner: event.pubkey, now: now) else {
      return .notRequired
    }
    guard let verifier = appAttest[state.appProfile] else {
      return given.isEmpty ? .notRequired : .refused(.invalidRequest)
    }
    guard given == Self.assertionFields, let challengeID = body.string("challenge_id"),
      let assertionText = body.string("assertion")
    else { return .refused(.attestationRequired) }
    guard AppAttestChallenge.isID(challengeID),
      let challenge = try await store.consumeChallenge(
        id: challengeID, owner: event.pubkey, purpose: "delegation:" + handle, now: now)
    else { return refusal("the challenge is unknown, used, expired or another's") }
    guard let publicKey = state.publicKey else { return refusal("the installation has no attested key") }
    guard let assertion = AppAttestBase64.decode(assertionText) else {
      return refusal("assertion is not base64")
    }
    do throws(AppAttestError) {
      let transcript = try AppAttestTranscript.assertion(
        route: route, publicURL: publicURL, challenge: challenge, fields: body.json)
      let counter = try verifier.verifyAssertion(
        assertion, clientData: transcript.clientData, publicKey: publicKey,
        previousCounter: UInt32(clamping: state.counter))
      return .asserted(counter: Int64(counter))
    } catch {
      return refusal("assertion failed at \(error.code)")
    }
  }

  /// 401 `invalid_attestation`, the step logged (the answer never says it).
  private func refusal(_ step: String) -> AppAttestCheck {
    log("app attest: \(step)")
    return .refused(.invalidAttestation)
  }
}
