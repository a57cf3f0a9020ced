import AppAttest
import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore

/// The registration routes, NIP-98 by the owner: installations, endpoint rotation, delegations
/// and revocations. Each is one store call that burns the request's NIP-98 id.
extension PushGateway {
  /// Answers a registration route: auth, allowlist, body, then the store.
  func register(_ request: HTTPServerRequest, route: String) async -> GatewayReply {
    let now = clock.now()
    let event: Event
    do {
      event = try registrationVerifier.verify(
        header: request.header("authorization"), url: publicURL + route, method: request.method,
        body: request.body, now: now)
    } catch {
      metrics.recordRegistration(Self.metricRoute(route), .invalidAuth)
      return .invalidAuth
    }
    if let owners, !owners.contains(event.pubkey) {
      metrics.recordRegistration(Self.metricRoute(route), .ownerNotAllowed)
      return .error(403, "owner_not_allowed")
    }
    let reply: GatewayReply
    do {
      switch route {
      case "/v1/installations": reply = try await registerInstallation(request.body, event: event, now: now)
      case "/v1/installations/challenges":
        reply = try await issueChallenge(request.body, event: event, now: now, delegation: false)
      case "/v1/delegations/challenges":
        reply = try await issueChallenge(request.body, event: event, now: now, delegation: true)
      case "/v1/installations/endpoint": reply = try await rotate(request.body, event: event, now: now)
      case "/v1/delegations": reply = try await delegate(request.body, event: event, now: now)
      case "/v1/delegations/revoke":
        reply = try await revoke(request.body, event: event, now: now, relay: true)
      default: reply = try await revoke(request.body, event: event, now: now, relay: false)
      }
    } catch {
      log("gateway store: \(error.code) on \(route)")
      metrics.recordRegistration(Self.metricRoute(route), .temporarilyUnavailable)
      return .temporarilyUnavailable
    }
    metrics.recordRegistration(Self.metricRoute(route), Self.outcomeLabel(reply))
    return reply
  }

  /// 401 `invalid_attestation` for an assertion whose counter did not rise in the store (a
  /// replay, or the loser of two racing assertions), logged.
  private func assertionReplayed() -> GatewayReply {
    log("app attest: the assertion's counter did not rise above the stored one")
    return .invalidAttestation
  }

  /// The metrics label of a registration reply: 201 `created`, another 2xx `ok`, else its error
  /// code (a code outside the closed set counts as `invalid_request` for a 4xx, else
  /// `temporarily_unavailable`).
  private static func outcomeLabel(_ reply: GatewayReply) -> PushGatewayRegistrationOutcome {
    if reply.status == 201 { return .created }
    guard reply.status >= 400 else { return .ok }
    let code = (try? JSONReader(maxDepth: 2).read(reply.body))?.objectValue?["error"]?.stringValue
    if let code, let outcome = PushGatewayRegistrationOutcome(rawValue: code) { return outcome }
    return reply.status < 500 ? .invalidRequest : .temporarilyUnavailable
  }

  /// The metrics label of a registration path.
  private static func metricRoute(_ path: String) -> PushGatewayRegistrationRoute {
    switch path {
    case "/v1/installations": .installations
    case "/v1/installations/endpoint": .installationsEndpoint
    case "/v1/installations/revoke": .installationsRevoke
    case "/v1/delegations": .delegations
    default: .delegationsRevoke
    }
  }

  private func registerInstallation(_ bytes: [UInt8], event: Event, now: Int64) async throws(PushGatewayError)
    -> GatewayReply
  {
    guard
      let body = GatewayRequestBody(
        bytes, required: ["v", "app_profile", "endpoint", "expires_at"], optional: Self.attestationFields),
      let profile = body.string("app_profile"), apps[profile] != nil, let token = body.endpoint,
      let expiresAt = body.expiresAt(now: now, maxAhead: Self.maxInstallationSeconds)
    else { return .invalidRequest }
    var attestedKey: AttestedKeyRecord? = nil
    switch try await checkAttestation(
      body, profile: profile, endpoint: token, expiresAt: expiresAt, event: event, now: now)
    {
    case .attested(let key): attestedKey = key
    case .refused(let reply): return reply
    case .notRequired, .asserted: break
    }
    let handle = Self.randomIdentifier()
    let sealed = try custody.seal(token, handle: handle)
    var registration = InstallationRegistration(
      auth: burn(event, now: now), owner: event.pubkey, appProfile: profile,
      fingerprints: keys.fingerprints(appProfile: profile, deviceToken: token), newHandle: handle,
      sealedToken: sealed.sealed, tokenKid: sealed.kid, expiresAt: expiresAt, now: now,
      maxPerOwner: Self.maxInstallationsPerOwner)
    registration.attestedKey = attestedKey
    let result = try await store.register(registration)
    func installation(_ status: Int, _ handle: String, _ epoch: Int64, _ expiresAt: Int64) -> GatewayReply {
      .object(
        status,
        JSONObject([
          "installation_handle": .string(handle), "endpoint_epoch": .integer(epoch),
          "expires_at": .integer(expiresAt),
        ]))
    }
    switch result {
    case .created(let handle, let epoch, let expiresAt): return installation(201, handle, epoch, expiresAt)
    case .existing(let handle, let epoch, let expiresAt): return installation(200, handle, epoch, expiresAt)
    case .conflict: return .error(409, "installation_conflict")
    case .tooMany: return .error(429, "too_many_installations")
    case .authReplayed: return .invalidAuth
    }
  }

  private func rotate(_ bytes: [UInt8], event: Event, now: Int64) async throws(PushGatewayError)
    -> GatewayReply
  {
    guard
      let body = GatewayRequestBody(
        bytes, required: ["v", "installation_handle", "endpoint"], optional: Self.assertionFields),
      let handle = body.handle, let token = body.endpoint
    else { return .invalidRequest }
    let counter: Int64?
    switch try await checkAssertion(
      body, route: .installationEndpoint, handle: handle, event: event, now: now)
    {
    case .asserted(let value): counter = value
    case .refused(let reply): return reply
    case .notRequired, .attested: counter = nil
    }
    let sealed = try custody.seal(token, handle: handle)
    var rotation = EndpointRotation(
      auth: burn(event, now: now), owner: event.pubkey, handle: handle,
      fingerprintsByProfile: Dictionary(
        uniqueKeysWithValues: apps.keys.map { ($0, keys.fingerprints(appProfile: $0, deviceToken: token)) }),
      sealedToken: sealed.sealed, tokenKid: sealed.kid, now: now)
    rotation.assertedCounter = counter
    let result = try await store.rotateEndpoint(rotation)
    switch result {
    case .rotated(let epoch): return .object(200, JSONObject(["endpoint_epoch": .integer(epoch)]))
    case .notFound: return .notFound
    case .assertionReplayed: return assertionReplayed()
    case .conflict: return .error(409, "installation_conflict")
    case .authReplayed: return .invalidAuth
    }
  }

  private func delegate(_ bytes: [UInt8], event: Event, now: Int64) async throws(PushGatewayError)
    -> GatewayReply
  {
    guard
      let body = GatewayRequestBody(
        bytes, required: ["v", "installation_handle", "relay_pubkey", "generation", "expires_at"],
        optional: Self.assertionFields),
      let handle = body.handle, let relay = body.relayPubkey, let generation = body.generation,
      let expiresAt = body.expiresAt(now: now, maxAhead: Self.maxDelegationSeconds)
    else { return .invalidRequest }
    if let relayPubkeys, !relayPubkeys.contains(relay) { return .error(403, "relay_not_allowed") }
    let counter: Int64?
    switch try await checkAssertion(body, route: .delegation, handle: handle, event: event, now: now) {
    case .asserted(let value): counter = value
    case .refused(let reply): return reply
    case .notRequired, .attested: counter = nil
    }
    let delegationID = Self.randomIdentifier()
    var request = DelegationRequest(
      auth: burn(event, now: now), owner: event.pubkey, handle: handle, relayPubkey: relay,
      generation: generation, expiresAt: expiresAt, newDelegationID: delegationID, now: now,
      maxPerInstallation: Self.maxDelegationsPerInstallation)
    request.assertedCounter = counter
    let result = try await store.delegate(request)
    switch result {
    case .delegated(let id, let profile, let epoch):
      let grant = EndpointGrant(
        delegationID: id, relayPubkey: relay, appProfile: profile, endpointEpoch: epoch,
        generation: generation,
        expiresAt: expiresAt)
      return .object(
        201,
        JSONObject([
          "endpoint_grant": .string(try grant.sealed(with: keys.current)), "expires_at": .integer(expiresAt),
        ]))
    case .notFound: return .notFound
    case .staleGeneration: return .error(409, "stale_generation")
    case .assertionReplayed: return assertionReplayed()
    case .outlivesInstallation: return .invalidRequest
    case .tooMany: return .error(429, "too_many_delegations")
    case .authReplayed: return .invalidAuth
    }
  }

  private func revoke(_ bytes: [UInt8], event: Event, now: Int64, relay: Bool) async throws(PushGatewayError)
    -> GatewayReply
  {
    let required: Set<String> =
      relay ? ["v", "installation_handle", "relay_pubkey"] : ["v", "installation_handle"]
    guard let body = GatewayRequestBody(bytes, required: required, optional: Self.assertionFields),
      let handle = body.handle
    else { return .invalidRequest }
    let relayPubkey = relay ? body.relayPubkey : nil
    if relay, relayPubkey == nil { return .invalidRequest }
    let counter: Int64?
    let route: AppAttestRoute = relay ? .delegationRevoke : .installationRevoke
    switch try await checkAssertion(body, route: route, handle: handle, event: event, now: now) {
    case .asserted(let value): counter = value
    case .refused(let reply): return reply
    case .notRequired, .attested: counter = nil
    }
    var revocation = RevocationRequest(
      auth: burn(event, now: now), owner: event.pubkey, handle: handle, relayPubkey: relayPubkey, now: now)
    revocation.assertedCounter = counter
    let result = try await store.revoke(revocation)
    switch result {
    case .revoked: return .object(200, JSONObject(["status": .string("revoked")]))
    case .notFound: return .notFound
    case .assertionReplayed: return assertionReplayed()
    case .authReplayed: return .invalidAuth
    }
  }
}
