import NostrEvent
import NostrHTTPServer
import NostrPushCore

/// `POST /v1/deliveries/apns`: the relay's signed delivery, admitted in one store transaction
/// and turned into one APNs request, answered by the answer table.
extension PushGateway {
  /// Answers a delivery request.
  func deliver(_ request: HTTPServerRequest) async -> GatewayReply {
    let reply = await deliveryReply(request)
    metrics.delivery(reply.outcome)
    return reply.reply
  }

  private func deliveryReply(_ request: HTTPServerRequest) async -> (reply: GatewayReply, outcome: String) {
    guard let body = DeliveryRequestBody(request.body) else { return (.invalidRequest, "invalid_request") }
    let now = clock.now()
    let event: Event
    do {
      event = try deliveryVerifier.verify(
        header: request.header("authorization"), url: publicURL + Self.deliveryPath, method: request.method,
        body: request.body, now: now)
    } catch {
      return (.invalidAuth, "invalid_auth")
    }
    if let relayPubkeys, !relayPubkeys.contains(event.pubkey) { return (.invalidAuth, "invalid_auth") }
    guard let grant = EndpointGrant.open(body.grant, keys: keys), grant.relayPubkey == event.pubkey,
      now <= body.expiresAt, body.expiresAt <= grant.expiresAt, let client = apps[grant.appProfile]
    else { return (.invalidGrant, "invalid_grant") }
    let started = ContinuousClock.now
    let admission: AdmissionResult
    do {
      admission = try await store.admit(
        DeliveryAdmission(
          auth: burn(event, now: now), relayPubkey: event.pubkey, delegationID: grant.delegationID,
          appProfile: grant.appProfile, epoch: grant.endpointEpoch, generation: grant.generation,
          requestID: body.requestID, wakeExpiresAt: body.expiresAt, now: now,
          quotaPer10Seconds: quotaPer10Seconds,
          quotaPerHour: quotaPerHour, inFlightSeconds: Self.inFlightSeconds))
    } catch {
      log("gateway store: \(error.code) on admission")
      return (.temporarilyUnavailable, "temporarily_unavailable")
    }
    metrics.observeAdmission(ContinuousClock.now - started)
    switch admission {
    case .authReplayed: return (.invalidAuth, "invalid_auth")
    case .invalidGrant: return (.invalidGrant, "invalid_grant")
    case .invalidEndpoint(let invalidAt):
      return (.invalidEndpoint(generation: grant.generation, invalidAt: invalidAt), "invalid_endpoint")
    case .replay(let status, let body): return (GatewayReply(status: status, body: body), "replay")
    case .inFlight(let seconds): return (.retry(after: seconds), "in_flight")
    case .rateLimited(let seconds): return (.rateLimited(after: seconds), "rate_limited")
    case .admitted(let installation):
      return await send(
        body, grant: grant, installation: installation, relay: event.pubkey, client: client)
    }
  }

  /// Sends an admitted delivery to APNs and records what became of it.
  private func send(
    _ body: DeliveryRequestBody, grant: EndpointGrant, installation: AdmittedInstallation, relay: String,
    client: APNsClient
  ) async -> (reply: GatewayReply, outcome: String) {
    let outcome: APNsOutcome
    if let token = custody.open(
      installation.sealedToken, kid: installation.tokenKid, handle: installation.handle),
      let wake = try? APNsWake(deviceToken: token, requestID: body.requestID, expiresAt: body.expiresAt)
    {
      let started = ContinuousClock.now
      outcome = await client.deliver(wake, deadline: .now + apnsTimeout)
      metrics.observeAPNs(ContinuousClock.now - started)
    } else {
      outcome = .configurationFault(reason: "the sealed device token does not open")
    }
    let reply: GatewayReply
    let label: String
    var disposition = DeliveryCompletion.Disposition.released
    var invalidated: EndpointInvalidation?
    switch outcome {
    case .accepted:
      (reply, label) = (.accepted, "accepted")
      disposition = .kept(status: reply.status, body: reply.body)
    case .invalidEndpoint(let invalidAt):
      (reply, label) = (
        .invalidEndpoint(generation: grant.generation, invalidAt: invalidAt), "invalid_endpoint"
      )
      disposition = .kept(status: reply.status, body: reply.body)
      invalidated = EndpointInvalidation(
        handle: installation.handle, epoch: installation.epoch, invalidAt: invalidAt)
    case .configurationFault(let reason):
      (reply, label) = (.configurationFault, "configuration_fault")
      logConfigurationFault(appProfile: grant.appProfile, reason: reason)
    case .retry(let seconds):
      (reply, label) = (.retry(after: seconds.map(Int64.init)), "retry")
    case .invalidRequest:
      (reply, label) = (.invalidRequest, "invalid_request")
      disposition = .kept(status: reply.status, body: reply.body)
    }
    metrics.apnsOutcome(label)
    do {
      try await store.finish(
        DeliveryCompletion(
          relayPubkey: relay, requestID: body.requestID, disposition: disposition, invalidated: invalidated,
          now: clock.now()))
    } catch {
      // The answer stands: a 200 the relay does not get would send the wake twice.
      log("gateway store: \(error.code) recording a delivery's outcome")
    }
    return (reply, label)
  }

  /// Logs a configuration fault of `appProfile`, at most once a minute per app.
  private func logConfigurationFault(appProfile: String, reason: String) {
    let now = clock.now()
    let due = faultLogged.withLock { logged in
      guard now - (logged[appProfile] ?? Int64.min / 2) >= Self.configurationFaultLogSeconds else {
        return false
      }
      logged[appProfile] = now
      return true
    }
    if due { log("APNs configuration fault for app \(appProfile): \(reason)") }
  }
}
