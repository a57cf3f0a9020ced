import NostrEvent
import NostrJSON
import PushDescriptor

/// Builds an account's kind 30350 leases for one relay: the active lease that enrolls a device
/// and the tombstone that revokes it.
///
/// Every bound comes from the descriptor's `limitation` and the content is encrypted to its
/// current key. Before signing, the plaintext goes through the validator's own plaintext checks
/// (`LeasePlaintextCheck`), then the length checks, so a lease the relay would refuse throws a
/// `LeaseBuildError` instead of being published. The builder holds no relay key and never calls
/// `LeaseValidator`.
public struct LeaseBuilder: Sendable {
  /// The lease event kind.
  public static let kind = EventKind.pushLease
  /// The longest clock margin taken off the relay's `max_lease_ttl`, in seconds.
  package static let maxClockMargin: Int64 = 300

  /// The relay's validated descriptor; its generation decides the plaintext written.
  package let descriptor: PushDescriptor
  /// The app's profile and transport (`nip-pl`); nil for a `buzz-push-v1` relay and for a
  /// builder that only writes tombstones.
  package let appProfile: PushAppProfile?
  /// The transport of a `buzz-push-v1` lease (a key of `class_support`); nil otherwise.
  package let transport: String?

  /// Creates a builder for one `nip-pl` relay and one app (`appProfile` is needed for active
  /// leases only).
  ///
  /// A profile given for a `buzz-push-v1` descriptor is refused by `active(…)` with
  /// `invalid_app_profile` before anything is signed: use `init(descriptor:transport:)` there.
  public init(descriptor: PushDescriptor, appProfile: PushAppProfile? = nil) {
    self.descriptor = descriptor
    self.appProfile = appProfile
    self.transport = nil
  }

  /// Creates a builder for one `buzz-push-v1` relay, whose leases name no app profile, only the
  /// `transport` the app is woken through (a key of `class_support`: `apns` on iOS).
  ///
  /// For a `nip-pl` descriptor `active(…)` throws `invalid_app_profile`: a lease there needs
  /// the app profile.
  public init(descriptor: PushDescriptor, transport: String) {
    self.descriptor = descriptor
    self.appProfile = nil
    self.transport = transport
  }

  /// The clock margin m = min(300, `max_lease_ttl` / 4) seconds: the lease ends that much before
  /// the relay's ceiling, so a client clock running ahead (or a slow publish) is not refused as
  /// `lease ttl too long`.
  package var clockMargin: Int64 {
    min(Self.maxClockMargin, Int64(descriptor.limitation.maxLeaseTTL) / 4)
  }

  /// The signed active lease.
  ///
  /// - Parameters:
  ///   - endpoint: the gateway's opaque endpoint grant (never the device token).
  ///   - subscriptions: usually `SubscriptionPlanner`'s plan.
  ///   - generation: as `LeaseEnrollment.next(now:)` returned it.
  ///   - createdAt: as `LeaseEnrollment.next(now:)` returned it.
  ///   - installationID: the lease's `d`, kept per (origin, account).
  ///   - grantExpiresAt: when the grant expires; the lease never outlives it.
  ///   - now: the current Unix time.
  ///   - signer: the account's key; the content is sealed from it and the event signed with it.
  /// - Throws: in this order `invalid_app_profile` (for `nip-pl` the profile is not advertised
  ///   with its transport; for `buzz-push-v1` a profile was given, or the transport is not a key
  ///   of `class_support`), `invalid_endpoint`, `invalid_generation`,
  ///   `invalid_subscriptions`, `invalid_created_at` (a clock outside 0…2^53−1), `grant_expired`,
  ///   `plaintext_too_long`, `content_too_long`.
  public func active(
    endpoint: String, subscriptions: [LeaseSubscription], generation: Int64, createdAt: Int64,
    installationID: InstallationID, grantExpiresAt: Int64? = nil, now: Int64, signer: SecretKey
  ) throws(LeaseBuildError) -> Event {
    try active(
      endpoint: endpoint, subscriptionsJSON: .array(subscriptions.map(\.jsonValue)), generation: generation,
      createdAt: createdAt, installationID: installationID, grantExpiresAt: grantExpiresAt, now: now,
      signer: signer)
  }

  /// As `active(endpoint:subscriptions:…)`, with the subscriptions as raw JSON (the CLI's
  /// `--subscriptions` file), checked exactly as the validator checks them and then written in
  /// the spec's member order.
  package func active(
    endpoint: String, subscriptionsJSON: JSONValue, generation: Int64, createdAt: Int64,
    installationID: InstallationID, grantExpiresAt: Int64?, now: Int64, signer: SecretKey
  ) throws(LeaseBuildError) -> Event {
    let limits = descriptor.limitation
    let request = try checkRequest(endpoint: endpoint)
    try checkGeneration(generation)
    var object = JSONObject([
      "v": .integer(LeasePlaintext.version), "origin": .string(descriptor.origin),
    ])
    if let appProfile = request.appProfile { object["app_profile"] = .string(appProfile) }
    object.members += [
      JSONMember(key: "transport", value: .string(request.transport)),
      JSONMember(key: "endpoint", value: .string(endpoint)),
      JSONMember(key: "generation", value: .integer(generation)),
      JSONMember(key: "active", value: .bool(true)),
      JSONMember(key: "subscriptions", value: subscriptionsJSON),
    ]
    let plaintext = try checked(object, author: signer.publicKeyHex)
    try checkClock(now: now, createdAt: createdAt)
    let ceiling = now + Int64(limits.maxLeaseTTL) - clockMargin
    let expiration = grantExpiresAt.map { min($0, ceiling) } ?? ceiling
    guard expiration > now else {
      throw LeaseBuildError(
        code: .grantExpired, field: "grant_expires_at",
        message: "the lease would expire at \(expiration), not after now (\(now))")
    }
    return try sealAndSign(
      plaintext, installationID: installationID, createdAt: createdAt, expiration: expiration, signer: signer)
  }

  /// The signed tombstone that revokes the lease at `installationID`, expiring at
  /// now + `max_lease_ttl` − the clock margin.
  ///
  /// - Throws: in this order `invalid_generation`, `invalid_subscriptions`, `invalid_created_at`,
  ///   `plaintext_too_long`, `content_too_long`.
  public func tombstone(
    installationID: InstallationID, generation: Int64, createdAt: Int64, now: Int64, signer: SecretKey
  ) throws(LeaseBuildError) -> Event {
    try checkGeneration(generation)
    let object = JSONObject([
      "v": .integer(LeasePlaintext.version), "origin": .string(descriptor.origin),
      "generation": .integer(generation), "active": .bool(false),
    ])
    let plaintext = try checked(object, author: signer.publicKeyHex)
    try checkClock(now: now, createdAt: createdAt)
    let expiration = now + Int64(descriptor.limitation.maxLeaseTTL) - clockMargin
    guard expiration > now else {
      throw LeaseBuildError(
        code: .grantExpired, message: "the tombstone would expire at \(expiration), not after now (\(now))")
    }
    return try sealAndSign(
      plaintext, installationID: installationID, createdAt: createdAt, expiration: expiration, signer: signer)
  }

  // MARK: Steps

  /// The first checks of `active`, in its order: the app's identity, then the endpoint
  /// (1…`max_endpoint_len` bytes). For `nip-pl` the identity is an app profile advertised with
  /// its transport, at most `max_string_len` bytes; for `buzz-push-v1` it is no app profile and
  /// a transport that is a key of `class_support`. Either failing is `invalid_app_profile`.
  ///
  /// `package` so the CLI can run them before it reads its channel files, in the code order.
  package func checkRequest(
    endpoint: String
  ) throws(LeaseBuildError) -> (appProfile: String?, transport: String) {
    let limits = descriptor.limitation
    let request: (appProfile: String?, transport: String)
    switch descriptor.pushProtocol {
    case .nipPL:
      guard let appProfile, descriptor.appProfiles.contains(appProfile),
        LeasePlaintextCheck.isStringLength(appProfile.id, limits.maxStringLen)
      else {
        let named = appProfile.map { "\"\($0.id)\" with transport \"\($0.transport)\"" } ?? "(none)"
        throw LeaseBuildError(
          code: .invalidAppProfile, field: "app_profile",
          message: "the app profile \(named) is not advertised, or is over max_string_len")
      }
      request = (appProfile.id, appProfile.transport)
    case .buzzPushV1:
      if let appProfile {
        throw LeaseBuildError(
          code: .invalidAppProfile, field: "app_profile",
          message: "a buzz-push-v1 relay takes no app profile; \"\(appProfile.id)\" was given")
      }
      guard let transport, descriptor.classSupportTransports.contains(transport) else {
        let offered = descriptor.classSupportTransports.joined(separator: ", ")
        throw LeaseBuildError(
          code: .invalidAppProfile, field: "transport",
          message:
            "the transport \(transport.map { "\"\($0)\"" } ?? "(none)") is not a key of class_support (\(offered))"
        )
      }
      request = (nil, transport)
    }
    guard LeasePlaintextCheck.isStringLength(endpoint, limits.maxEndpointLen) else {
      throw LeaseBuildError(
        code: .invalidEndpoint, field: "endpoint",
        message: "the endpoint must be 1 to \(limits.maxEndpointLen) bytes")
    }
    return request
  }

  /// The generation check of `active` and `tombstone`: 1…2^53−1.
  package func checkGeneration(_ generation: Int64) throws(LeaseBuildError) {
    guard LeasePlaintextCheck.isCount(generation, LeasePlaintextCheck.maxGeneration) else {
      throw LeaseBuildError(
        code: .invalidGeneration, field: "generation",
        message: "the generation must be 1 to \(LeasePlaintextCheck.maxGeneration), got \(generation)")
    }
  }

  /// `now` and `createdAt` must be Unix seconds an event can carry (0…2^53−1).
  private func checkClock(now: Int64, createdAt: Int64) throws(LeaseBuildError) {
    for (name, value) in [("now", now), ("created_at", createdAt)]
    where !(0...Event.maxCreatedAt).contains(value) {
      throw LeaseBuildError(
        code: .invalidCreatedAt, field: name, message: "\(name) \(value) is outside 0…\(Event.maxCreatedAt)")
    }
  }

  private func checked(_ object: JSONObject, author: String) throws(LeaseBuildError) -> LeasePlaintext {
    do {
      return try LeasePlaintextCheck.validate(
        object, author: author, tenantOrigin: descriptor.origin, descriptor: descriptor)
    } catch {
      throw LeaseBuildError(code: .invalidSubscriptions, message: error.message)
    }
  }

  private func sealAndSign(
    _ plaintext: LeasePlaintext, installationID: InstallationID, createdAt: Int64, expiration: Int64,
    signer: SecretKey
  ) throws(LeaseBuildError) -> Event {
    let limits = descriptor.limitation
    let text = plaintext.text
    let length = text.utf8.count
    guard length <= limits.maxPlaintextLen, length <= LeaseCipher.maxPlaintextBytes else {
      throw LeaseBuildError(
        code: .plaintextTooLong,
        message:
          "the plaintext is \(length) bytes; max_plaintext_len is \(limits.maxPlaintextLen) (NIP-44 carries \(LeaseCipher.maxPlaintextBytes))"
      )
    }
    guard let key = descriptor.currentKey else {
      throw LeaseBuildError(code: .encryptionFailed, message: "the descriptor has no current push key")
    }
    guard let content = LeaseCipher.seal(text, from: signer, to: key.pubkey) else {
      throw LeaseBuildError(
        code: .encryptionFailed, message: "NIP-44 could not encrypt to push key \(key.id)")
    }
    guard content.utf8.count <= limits.maxContentLen else {
      throw LeaseBuildError(
        code: .contentTooLong,
        message:
          "the encrypted content is \(content.utf8.count) bytes; max_content_len is \(limits.maxContentLen)")
    }
    let unsigned = UnsignedEvent(
      pubkey: signer.publicKeyHex, createdAt: createdAt, kind: Self.kind,
      tags: [["d", installationID.rawValue], ["expiration", String(expiration)], ["exec", key.id]],
      content: content)
    do {
      return try unsigned.signed(with: signer)
    } catch {
      throw LeaseBuildError(code: .encryptionFailed, message: "signing failed: \(error)")
    }
  }
}
