/// What became of one delivery a relay asked for: the `outcome` label of
/// `push_gateway_deliveries_total`, one case per row of the gateway's answer table.
public enum PushGatewayDeliveryOutcome: String, Sendable, Hashable, CaseIterable {
  /// APNs took the wake (200).
  case accepted
  /// The device token is dead (410), from APNs or from an epoch already marked.
  case invalidEndpoint = "invalid_endpoint"
  /// A fault of the app's APNs configuration (503 `configuration_fault`).
  case configurationFault = "configuration_fault"
  /// A passing APNs failure: the relay retries (503 `retry`).
  case retry
  /// The request or APNs's answer to it was refused as malformed (400 `invalid_request`).
  case invalidRequest = "invalid_request"
  /// Over the device's quota (429 `rate_limited`).
  case rateLimited = "rate_limited"
  /// The grant, delegation or installation was refused (404 `invalid_grant`).
  case invalidGrant = "invalid_grant"
  /// The NIP-98 authorization was missing, wrong or replayed (401 `invalid_auth`).
  case invalidAuth = "invalid_auth"
  /// A finished `request_id` answered again, without APNs.
  case replay
  /// The `request_id` is being sent by another attempt right now (503 `retry`).
  case inFlight = "in_flight"
  /// The store was down (503 `temporarily_unavailable`).
  case temporarilyUnavailable = "temporarily_unavailable"
}

/// The status class of one request to APNs: the `status_class` label of
/// `push_gateway_apns_attempts_total`.
public enum APNsStatusClass: String, Sendable, Hashable, CaseIterable {
  /// 2xx.
  case success = "2xx"
  /// 4xx.
  case clientError = "4xx"
  /// 5xx.
  case serverError = "5xx"
  /// Any other status (1xx, 3xx: APNs sends none).
  case other
  /// No answer: a timeout, a reset, a refused TLS or HTTP/2 connection.
  case transportError = "transport_error"

  /// The class of `status`, `transportError` when there was no answer.
  public init(status: Int?) {
    switch status {
    case .none: self = .transportError
    case .some(200...299): self = .success
    case .some(400...499): self = .clientError
    case .some(500...599): self = .serverError
    default: self = .other
    }
  }
}

/// A registration route: the `route` label of `push_gateway_registrations_total`.
public enum PushGatewayRegistrationRoute: String, Sendable, Hashable, CaseIterable {
  /// `POST /v1/installations`.
  case installations
  /// `POST /v1/installations/endpoint`.
  case installationsEndpoint = "installations_endpoint"
  /// `POST /v1/installations/revoke`.
  case installationsRevoke = "installations_revoke"
  /// `POST /v1/delegations`.
  case delegations
  /// `POST /v1/delegations/revoke`.
  case delegationsRevoke = "delegations_revoke"
}

/// How a registration request was answered: the `outcome` label of
/// `push_gateway_registrations_total`.
public enum PushGatewayRegistrationOutcome: String, Sendable, Hashable, CaseIterable {
  /// 201: created.
  case created
  /// 200: done, or the live installation given back.
  case ok
  /// 409 `installation_conflict`.
  case installationConflict = "installation_conflict"
  /// 409 `stale_generation`.
  case staleGeneration = "stale_generation"
  /// 429 `too_many_installations`.
  case tooManyInstallations = "too_many_installations"
  /// 429 `too_many_delegations`.
  case tooManyDelegations = "too_many_delegations"
  /// 404 `not_found`.
  case notFound = "not_found"
  /// 401 `invalid_auth`: the NIP-98 authorization was missing, wrong or replayed.
  case invalidAuth = "invalid_auth"
  /// 403 `owner_not_allowed`: the owner is outside the `owners` allowlist.
  case ownerNotAllowed = "owner_not_allowed"
  /// 403 `relay_not_allowed`: the relay is outside the `relay_pubkeys` allowlist.
  case relayNotAllowed = "relay_not_allowed"
  /// 400 or 413: the body was refused.
  case invalidRequest = "invalid_request"
  /// 503 `temporarily_unavailable`: the store was down.
  case temporarilyUnavailable = "temporarily_unavailable"
}
