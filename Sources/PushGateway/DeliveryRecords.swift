/// One delivery to admit: what the opened grant says and what the request carries.
public struct DeliveryAdmission: Sendable, Hashable {
  /// The request's NIP-98 id.
  public var auth: AuthBurn
  /// The signer (= the grant's relay key).
  public var relayPubkey: String
  /// The grant's delegation id.
  public var delegationID: String
  /// The grant's app profile.
  public var appProfile: String
  /// The grant's endpoint epoch.
  public var epoch: Int64
  /// The grant's generation.
  public var generation: Int64
  /// The relay's `request_id`.
  public var requestID: String
  /// The wake's expiry: a kept answer is remembered until then (and a little after).
  public var wakeExpiresAt: Int64
  /// Now.
  public var now: Int64
  /// The most admissions per device fingerprint in any 10 s.
  public var quotaPer10Seconds: Int
  /// The most admissions per device fingerprint in any hour.
  public var quotaPerHour: Int
  /// How long an admitted request is held as in flight before a retry may take it over (a
  /// gateway that died mid-delivery must not hold it for ever).
  public var inFlightSeconds: Int64

  /// An admission.
  public init(
    auth: AuthBurn, relayPubkey: String, delegationID: String, appProfile: String, epoch: Int64,
    generation: Int64, requestID: String, wakeExpiresAt: Int64, now: Int64, quotaPer10Seconds: Int,
    quotaPerHour: Int, inFlightSeconds: Int64
  ) {
    self.auth = auth
    self.relayPubkey = relayPubkey
    self.delegationID = delegationID
    self.appProfile = appProfile
    self.epoch = epoch
    self.generation = generation
    self.requestID = requestID
    self.wakeExpiresAt = wakeExpiresAt
    self.now = now
    self.quotaPer10Seconds = quotaPer10Seconds
    self.quotaPerHour = quotaPerHour
    self.inFlightSeconds = inFlightSeconds
  }
}

/// An admitted delivery's installation: what the APNs request needs.
public struct AdmittedInstallation: Sendable, Hashable {
  /// The installation handle.
  public var handle: String
  /// The sealed device token.
  public var sealedToken: String
  /// The id of the key that sealed it.
  public var tokenKid: String
  /// The epoch admitted.
  public var epoch: Int64

  /// An admitted installation.
  public init(handle: String, sealedToken: String, tokenKid: String, epoch: Int64) {
    self.handle = handle
    self.sealedToken = sealedToken
    self.tokenKid = tokenKid
    self.epoch = epoch
  }
}

/// What admission decided.
public enum AdmissionResult: Sendable, Hashable {
  /// Send it to APNs; the `request_id` is held in flight until ``PushGatewayStore/finish(_:)``.
  case admitted(AdmittedInstallation)
  /// The grant's delegation or installation is not live at that generation and epoch (404
  /// `invalid_grant`).
  case invalidGrant
  /// The epoch is marked invalid (410, without APNs): the answer was kept as well.
  case invalidEndpoint(invalidAt: Int64?)
  /// The `request_id` was finished before: this answer again, without APNs.
  case replay(status: Int, body: [UInt8])
  /// The `request_id` is being delivered now: try again in `retryAfterSeconds` (503 `retry`).
  case inFlight(retryAfterSeconds: Int64)
  /// Over the quota (429 `rate_limited`).
  case rateLimited(retryAfterSeconds: Int64)
  /// The NIP-98 id was burned already (401 `invalid_auth`).
  case authReplayed
}

/// An installation epoch APNs answered 410 for.
public struct EndpointInvalidation: Sendable, Hashable {
  /// The installation.
  public var handle: String
  /// The epoch the dead token belongs to (a later epoch is left alone).
  public var epoch: Int64
  /// APNs's timestamp, Unix seconds, when it gave one.
  public var invalidAt: Int64?

  /// An invalidation.
  public init(handle: String, epoch: Int64, invalidAt: Int64?) {
    self.handle = handle
    self.epoch = epoch
    self.invalidAt = invalidAt
  }
}

/// What became of an admitted delivery.
public struct DeliveryCompletion: Sendable, Hashable {
  /// What the ledger does with the `request_id`.
  public enum Disposition: Sendable, Hashable {
    /// Keep it with the answer given, answered again to any replay.
    case kept(status: Int, body: [UInt8])
    /// Forget it: the relay's retry is a new attempt.
    case released
  }

  /// The relay.
  public var relayPubkey: String
  /// The `request_id`.
  public var requestID: String
  /// Kept or released.
  public var disposition: Disposition
  /// When APNs answered 410: the installation epoch to mark.
  public var invalidated: EndpointInvalidation?
  /// Now.
  public var now: Int64

  /// A completion.
  public init(
    relayPubkey: String, requestID: String, disposition: Disposition,
    invalidated: EndpointInvalidation? = nil,
    now: Int64
  ) {
    self.relayPubkey = relayPubkey
    self.requestID = requestID
    self.disposition = disposition
    self.invalidated = invalidated
    self.now = now
  }
}
