import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRegistration

/// `nostr-push enroll` and `nostr-push revoke`: the app's lease over its lifetime
/// (`Docs/CommandLine.md`): discover the descriptor, obtain a grant, plan, build, save the enrollment,
/// publish over WebSocket with NIP-42.
enum EnrollCommand: CLICommand {
  static let name = "enroll"
  static let summary = "enroll this account's push lease with a relay (kind 30350 over WebSocket)"
  static let usage = """
    usage: nostr-push enroll --relay URL --secret-key-file FILE --state FILE
                             [--app-profile ID] --transport apns|fcm
                             (--endpoint GRANT | --gateway URL --device-token HEX)
                             [--channels FILE] [--muted FILE] [--direct-messages] [--now UNIX]

    Discovers the relay's push descriptor (NIP-11), obtains an endpoint grant (given, or from the
    push gateway at --gateway: registers --device-token under --app-profile, signed NIP-98 by the
    account key, then delegates it to the relay's push key), plans the subscriptions (mentions of the account and
    the channels of --channels, minus --muted; with --direct-messages, gift wraps for the account
    when the relay's push_kinds holds 1059), builds the lease, saves the next generation to
    --state before signing, and publishes the lease to push.origin with NIP-42. One JSON line.
    --app-profile is required by a nip-pl relay and refused by a buzz-push-v1 relay
    (invalid_app_profile), whose lease names only --transport.
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(
      arguments,
      valueFlags: [
        "relay", "secret-key-file", "state", "app-profile", "transport", "endpoint", "gateway",
        "device-token",
        "channels", "muted", "now",
      ], booleanFlags: ["direct-messages"])
    _ = try reader.positionals(atMost: 0)
    let relay = try reader.required("relay")
    let keyFile = try reader.required("secret-key-file")
    let statePath = try reader.required("state")
    let now = try reader.integer("now")
    let appProfile = reader.value("app-profile")
    let transport = try reader.required("transport")
    try DescriptorCommand.checkTransport(transport)
    let grant: GrantSource
    switch (reader.value("endpoint"), reader.value("gateway"), reader.value("device-token")) {
    case (let endpoint?, nil, nil): grant = .given(endpoint)
    case (nil, let gateway?, let token?):
      grant = .gateway(url: gateway, deviceToken: token, appProfile: appProfile)
    default: throw UsageError("give --endpoint, or --gateway with --device-token")
    }
    return await Enrollment.answer { () async throws(CommandFailure) -> EnrollmentOutcome in
      let key = try CommandFailure.reporting { () throws(LeaseBuildError) in
        try LeaseCommand.secretKey(keyFile)
      }
      let joined = try CommandFailure.reporting { () throws(LeaseBuildError) in
        try LeaseCommand.channelFile(reader.value("channels"), flag: "channels")
      }
      let muted = try CommandFailure.reporting { () throws(LeaseBuildError) in
        try LeaseCommand.channelFile(reader.value("muted"), flag: "muted")
      }
      return try await Enrollment(relay: relay, key: key, statePath: statePath, now: now).enroll(
        appProfile: appProfile, transport: transport, grant: grant, joined: joined, muted: muted,
        directMessages: reader.has("direct-messages"))
    }
  }
}

/// `nostr-push revoke`: publishes the tombstone of this account's lease at the relay, with the
/// next generation of its saved enrollment.
enum RevokeCommand: CLICommand {
  static let name = "revoke"
  static let summary = "revoke this account's push lease (kind 30350 tombstone)"
  static let usage = """
    usage: nostr-push revoke --relay URL --secret-key-file FILE --state FILE [--now UNIX]

    Discovers the relay's descriptor, takes the enrollment --state holds for its push.origin and
    this account (not_enrolled without one), saves the next generation before signing, and
    publishes the tombstone over WebSocket with NIP-42. One JSON line, as enroll prints.
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: ["relay", "secret-key-file", "state", "now"])
    _ = try reader.positionals(atMost: 0)
    let relay = try reader.required("relay")
    let keyFile = try reader.required("secret-key-file")
    let statePath = try reader.required("state")
    let now = try reader.integer("now")
    return await Enrollment.answer { () async throws(CommandFailure) -> EnrollmentOutcome in
      let key = try CommandFailure.reporting { () throws(LeaseBuildError) in
        try LeaseCommand.secretKey(keyFile)
      }
      return try await Enrollment(relay: relay, key: key, statePath: statePath, now: now).revoke()
    }
  }
}

/// The app's half of the pipeline for one account at one relay, as `enroll`, `revoke` and the
/// demo use it: discovery, grant, plan, lease, the state file (saved before signing), publish.
struct Enrollment: Sendable {
  /// How long discovery, the grant and the publish may take, each.
  static let stepTimeout: Duration = .seconds(8)

  let relay: String
  let key: SecretKey
  let statePath: String
  /// `--now`; nil reads the system clock.
  let now: Int64?

  /// `--now`, else the system clock.
  func clock() -> Int64 { now ?? Int64(Date().timeIntervalSince1970) }

  /// Enrolls (or re-enrolls, reusing `d` with the next generation) for mentions and `joined`,
  /// and direct messages when asked.
  func enroll(
    appProfile: String?, transport: String, grant: GrantSource, joined: [String], muted: [String],
    directMessages: Bool = false
  ) async throws(CommandFailure) -> EnrollmentOutcome {
    let descriptor = try await discover()
    try Self.builder(appProfile, transport: transport, for: descriptor)
    let (endpoint, grantExpiresAt) = try await grant.endpoint(for: descriptor, key: key, now: clock())
    return try await enroll(
      descriptor: descriptor, appProfile: appProfile, transport: transport, endpoint: endpoint,
      grantExpiresAt: grantExpiresAt, joined: joined, muted: muted, directMessages: directMessages)
  }

  /// As `enroll(appProfile:transport:grant:joined:muted:)`, with the descriptor already
  /// discovered and the grant already obtained (the demo shows those steps on their own).
  /// `appProfile` is for a `nip-pl` relay; nil for `buzz-push-v1`.
  func enroll(
    descriptor: PushDescriptor, appProfile: String?, transport: String, endpoint: String,
    grantExpiresAt: Int64?,
    joined: [String], muted: [String], directMessages: Bool = false
  ) async throws(CommandFailure) -> EnrollmentOutcome {
    let subscriptions = try CommandFailure.reporting { () throws(LeaseBuildError) in
      try SubscriptionPlanner(descriptor: descriptor).plan(
        for: key.publicKeyHex, joined: joined, muted: muted, mentionsOnly: joined.isEmpty,
        directMessages: directMessages)
    }
    return try await enroll(
      descriptor: descriptor, appProfile: appProfile, transport: transport, endpoint: endpoint,
      grantExpiresAt: grantExpiresAt, subscriptions: subscriptions)
  }

  /// As above, with subscriptions planned by the caller (the social demo's
  /// `SubscriptionPlanner.socialPlan(for:options:)`).
  func enroll(
    descriptor: PushDescriptor, appProfile: String?, transport: String, endpoint: String,
    grantExpiresAt: Int64?, subscriptions: [LeaseSubscription]
  ) async throws(CommandFailure) -> EnrollmentOutcome {
    let builder = try Self.builder(appProfile, transport: transport, for: descriptor)
    let now = clock()
    let (enrollment, stamp) = try updatingState { (state) throws(CommandFailure) in
      var enrollment =
        state.enrollment(origin: descriptor.origin, pubkey: key.publicKeyHex)
        ?? LeaseEnrollment(origin: descriptor.origin, pubkey: key.publicKeyHex)
      enrollment.grantExpiresAt = grantExpiresAt
      let stamp = enrollment.next(now: now)
      state.set(enrollment)
      return (enrollment, stamp)
    }
    let event = try CommandFailure.reporting { () throws(LeaseBuildError) in
      try builder.active(
        endpoint: endpoint, subscriptions: subscriptions, generation: stamp.generation,
        createdAt: stamp.createdAt, installationID: enrollment.installationID,
        grantExpiresAt: grantExpiresAt, now: now, signer: key)
    }
    let lease = PreparedLease(
      origin: descriptor.origin, event: event, generation: stamp.generation, subscriptions: subscriptions)
    return EnrollmentOutcome(lease: lease, result: try await publish(lease))
  }

  /// The lease builder for the relay's generation, else `invalid_app_profile`: for `nip-pl`
  /// the advertised profile `id` with `transport` (required), for `buzz-push-v1` no profile and
  /// a transport that is a key of `class_support`.
  @discardableResult
  static func builder(_ id: String?, transport: String, for descriptor: PushDescriptor)
    throws(CommandFailure) -> LeaseBuilder
  {
    switch descriptor.pushProtocol {
    case .nipPL:
      guard let id else {
        throw CommandFailure("invalid_app_profile", "a nip-pl relay needs --app-profile")
      }
      guard let profile = descriptor.appProfiles.first(where: { $0.id == id && $0.transport == transport })
      else {
        throw CommandFailure(
          "invalid_app_profile", "the relay does not advertise app profile \(id) for \(transport)")
      }
      return LeaseBuilder(descriptor: descriptor, appProfile: profile)
    case .buzzPushV1:
      if let id {
        throw CommandFailure(
          "invalid_app_profile", "a buzz-push-v1 relay takes no app profile; \(id) was given")
      }
      guard descriptor.classSupportTransports.contains(transport) else {
        throw CommandFailure(
          "invalid_app_profile", "the relay's class_support has no transport \(transport)")
      }
      return LeaseBuilder(descriptor: descriptor, transport: transport)
    }
  }

  /// Publishes the tombstone of the saved enrollment with its next generation.
  func revoke() async throws(CommandFailure) -> EnrollmentOutcome {
    let descriptor = try await discover()
    let now = clock()
    let statePath = self.statePath
    let (enrollment, stamp) = try updatingState { (state) throws(CommandFailure) in
      guard var enrollment = state.enrollment(origin: descriptor.origin, pubkey: key.publicKeyHex) else {
        throw CommandFailure(
          "not_enrolled", "no enrollment for \(descriptor.origin) and this account in \(statePath)")
      }
      let stamp = enrollment.next(now: now)
      state.set(enrollment)
      return (enrollment, stamp)
    }
    let event = try CommandFailure.reporting { () throws(LeaseBuildError) in
      try LeaseBuilder(descriptor: descriptor).tombstone(
        installationID: enrollment.installationID, generation: stamp.generation, createdAt: stamp.createdAt,
        now: now, signer: key)
    }
    let lease = PreparedLease(
      origin: descriptor.origin, event: event, generation: stamp.generation, subscriptions: [])
    return EnrollmentOutcome(lease: lease, result: try await publish(lease))
  }

  /// Runs `step` and prints its line (exit 0), or the `{"error":…}` line (exit 1).
  static func answer(_ step: () async throws(CommandFailure) -> EnrollmentOutcome) async -> Int32 {
    do throws(CommandFailure) {
      CLIOutput.line(bytes: JSONWriter.bytes(try await step().line))
      return ExitCode.success
    } catch {
      return error.print()
    }
  }

  /// The relay's push descriptor: `transport` when it cannot be fetched, `invalid_descriptor`
  /// when it gives no valid one.
  func discover() async throws(CommandFailure) -> PushDescriptor {
    do {
      return try await PushDiscovery().discover(relay: relay, timeout: Self.stepTimeout).push
    } catch {
      if error.code == .transport { throw CommandFailure("transport", "discovery: \(error.message)") }
      throw CommandFailure("invalid_descriptor", error.description)
    }
  }

  /// Loads the state, lets `body` change it, and writes it back, all under the state file's
  /// exclusive lock.
  private func updatingState<T>(_ body: (inout EnrollmentState) throws(CommandFailure) -> T)
    throws(CommandFailure) -> T
  {
    let statePath = self.statePath
    var failure: CommandFailure?
    var result: T?
    do {
      try EnrollmentState.withLock(statePath) {
        var state: EnrollmentState
        do {
          state = try EnrollmentState(path: statePath)
        } catch {
          failure = CommandFailure("invalid_state", "\(statePath): \(error)")
          return
        }
        do throws(CommandFailure) {
          result = try body(&state)
        } catch {
          failure = error
          return
        }
        do {
          try state.write(to: statePath)
        } catch {
          failure = CommandFailure("invalid_state", "cannot write \(statePath): \(error)")
        }
      }
    } catch {
      throw CommandFailure("invalid_state", "cannot lock \(statePath): \(error)")
    }
    if let failure { throw failure }
    guard let result else { throw CommandFailure("invalid_state", "\(statePath): not updated") }
    return result
  }

  private func publish(_ lease: PreparedLease) async throws(CommandFailure) -> PublishResult {
    let deadline = ContinuousClock.now + Self.stepTimeout
    let (key, clock) = (self.key, self.clock)
    let accountClock: RelayConnection.Clock = { clock() }
    do throws(RelayConnectionError) {
      return try await RelayExchange.withConnection(
        to: lease.origin, key: key, clock: accountClock, deadline: deadline
      ) { connection throws(RelayConnectionError) in
        try await connection.publish(lease.event, deadline: deadline)
      }
    } catch {
      let code = error.code == .authFailed ? "auth_failed" : "transport"
      throw CommandFailure(code, "publish to \(lease.origin): \(error.code.rawValue): \(error.message)")
    }
  }
}

/// A published lease or tombstone and the relay's answer.
struct EnrollmentOutcome: Sendable {
  /// What was published.
  let lease: PreparedLease
  /// The relay's `OK`.
  let result: PublishResult

  /// `{"accepted":…,"message":…,"d":…,"generation":n,"expiration":n,"exec":…,"event_id":…}`.
  var line: JSONValue {
    let tag = { (name: String) in lease.event.tagValues(name).first ?? "" }
    return .object(
      JSONObject([
        "accepted": .bool(result.accepted), "message": .string(result.message), "d": .string(tag("d")),
        "generation": .integer(lease.generation), "expiration": .integer(Int64(tag("expiration")) ?? 0),
        "exec": .string(tag("exec")), "event_id": .string(lease.event.id),
      ]))
  }
}

/// A signed lease or tombstone ready to publish.
struct PreparedLease: Sendable {
  /// The descriptor's `push.origin`: where the lease is published.
  let origin: String
  /// The signed kind 30350.
  let event: Event
  /// Its generation, as saved in the state file.
  let generation: Int64
  /// The planned subscriptions (empty for a tombstone).
  let subscriptions: [LeaseSubscription]
}

/// Where `enroll` gets its endpoint grant.
///
/// Decisions for `--gateway`: the installation is registered for 60 days and the delegation for
/// 30 (within the gateway's 90 and 31), the delegation's generation is the Unix second of the
/// enrollment (it only rises), and registering again gives the same live installation back, so
/// nothing about the installation is kept in the state file. A `buzz-push-v1` relay takes no app
/// profile, so `--gateway` cannot register for it (`invalid_app_profile`).
enum GrantSource: Sendable {
  /// `--endpoint`: a grant the app already holds (its expiry unknown).
  case given(String)
  /// `--gateway` + `--device-token`: register and delegate through the gateway's real routes
  /// (`GatewayRegistrar`), under `appProfile`.
  case gateway(url: String, deviceToken: String, appProfile: String?)

  /// How long the installation is registered for.
  static let installationSeconds: Int64 = 60 * 86_400
  /// How long the delegation is asked for.
  static let delegationSeconds: Int64 = 30 * 86_400

  /// The grant and its expiry (nil when given); `grant_failed` when the gateway refuses.
  func endpoint(for descriptor: PushDescriptor, key: SecretKey, now: Int64) async throws(CommandFailure) -> (
    String, Int64?
  ) {
    switch self {
    case .given(let endpoint):
      return (endpoint, nil)
    case .gateway(let url, let deviceToken, let appProfile):
      guard let relayKey = descriptor.currentKey else {
        throw CommandFailure("invalid_descriptor", "the descriptor names no current push key")
      }
      guard let appProfile else {
        throw CommandFailure(
          "invalid_app_profile", "--gateway registers the device under --app-profile; give it")
      }
      return try await Self.register(
        url: url, deviceToken: deviceToken, appProfile: appProfile, relay: relayKey.pubkey, key: key, now: now
      )
    }
  }

  /// The answer of one registrar call; a refused argument is `invalid_argument` (the field named).
  private static func answer<Value>(
    _ call: () async throws(GatewayRegistrationError) -> GatewayRegistrationAnswer<Value>
  )
    async throws(CommandFailure) -> GatewayRegistrationAnswer<Value>
  {
    do {
      return try await call()
    } catch {
      throw CommandFailure(error.code.description, "\(error.field ?? ""): \(error.message)")
    }
  }

  /// Registers `deviceToken` (or gets its live installation back) and delegates it to `relay`.
  private static func register(
    url: String, deviceToken: String, appProfile: String, relay: String, key: SecretKey, now: Int64
  ) async throws(CommandFailure) -> (String, Int64?) {
    let registrar: GatewayRegistrar
    do {
      registrar = try GatewayRegistrar(baseURL: url, key: key, clock: .fixed(now))
    } catch {
      throw CommandFailure(error)
    }
    let registered = try await answer { () async throws(GatewayRegistrationError) in
      try await registrar.register(
        appProfile: appProfile, deviceToken: deviceToken, expiresAt: now + installationSeconds,
        deadline: .now + Enrollment.stepTimeout)
    }
    let installation: GatewayInstallation
    switch registered {
    case .created(let value), .done(let value): installation = value
    default: throw CommandFailure("grant_failed", "the gateway answered the registration: \(registered)")
    }
    let delegated = try await answer { () async throws(GatewayRegistrationError) in
      try await registrar.delegate(
        installationHandle: installation.handle, relayPubkey: relay, generation: max(1, now),
        expiresAt: min(now + delegationSeconds, installation.expiresAt),
        deadline: .now + Enrollment.stepTimeout)
    }
    guard case .created(let delegation) = delegated else {
      throw CommandFailure("grant_failed", "the gateway answered the delegation: \(delegated)")
    }
    return (delegation.endpointGrant, delegation.expiresAt)
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
  }
}
