import Bech32
import EnrichmentCache
import Foundation
import GiftWrap
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTesting
import NostrWebSocket
import NotificationResolver
import PushDescriptor
import PushGateway
import PushLease
import PushRelay

/// The script of `Docs/CommandLine.md`'s demo, every hop real on loopback: the app enrolls, a second user
/// posts, the relay matches and asks the gateway for a wake, the extension resolves it; the second
/// user sends the account a NIP-17 direct message when the relay's descriptor lists gift wraps
///; then the app revokes and a last message wakes nothing. The gateway is the production
/// `PushGateway` (`DemoGateway`): the app registers and delegates on its real routes
/// (`GatewayRegistrar`), and each wake shows the APNs request it sent, its JWT verified.
///
/// Each step prints one JSON line (`step`, then its fields) on standard output and a sentence on
/// standard error; the first step that does not happen as it should ends the run with a
/// `{"step":"failed","at":…,"message":…}` line.
struct DemoPipeline {
  /// The demo's device token (a test value: the recording transport never reaches APNs).
  static let deviceToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
  /// The app profile the demo descriptor advertises (`nip-pl` only; a `buzz-push-v1` lease has
  /// none).
  static let appProfile = DemoGateway.appProfile
  /// How long a wake may take to reach the gateway before the step fails.
  static let wakeTimeout: Duration = .seconds(10)
  /// How long the demo waits to show that a message after revocation wakes nothing.
  static let silenceWindow: Duration = .seconds(1)
  /// How long the demo lets late enrichment reach the cache after a notification.
  static let lingerLimit: Duration = .seconds(3)

  let relay: RelayFixtureServer
  let gateway: DemoGateway
  let account: SecretKey
  let sender: SecretKey
  let channel: String
  let workspace: String
  /// The clock every party reads; nil is the system clock (the demo). Tests pass the fixtures'
  /// fixed clock, shared with the relay, the gateway and the resolver.
  var clock: (@Sendable () -> Int64)? = nil
  /// Where step lines go (standard output in the demo).
  var output: @Sendable ([UInt8]) -> Void = { CLIOutput.line(bytes: $0) }
  /// Where sentences go (standard error in the demo).
  var log: @Sendable (String) -> Void = { CLIOutput.error($0) }
  /// Called while a wake is awaited: a test moves its fixed clock here (a retry's backoff).
  var whileWaiting: @Sendable () async -> Void = {}

  /// The time every party agrees on, in Unix seconds.
  func now() -> Int64 { clock?() ?? Int64(Date().timeIntervalSince1970) }

  /// The app's side for the demo account at the relay.
  var enrollment: Enrollment {
    Enrollment(
      relay: relay.origin ?? "", key: account, statePath: workspace + "/enrollment.json",
      now: clock.map { $0() })
  }

  /// Runs every step; true when all happened as listed.
  func run() async -> Bool {
    do throws(DemoFailure) {
      try await script()
      return true
    } catch {
      output(
        JSONWriter.bytes(
          .object(
            JSONObject([
              "step": .string("failed"), "at": .string(error.step), "message": .string(error.message),
            ]))))
      log("demo: failed at \(error.step): \(error.message)")
      return false
    }
  }

  private func script() async throws(DemoFailure) {
    let subscriptions = try await enrollForTheDemoChannel()

    let first = try await publishMention()
    let firstWake = try await wake(for: first)
    try await notify(firstWake, subscriptions: subscriptions)

    let reply = try await publishReply(to: first)
    let secondWake = try await wake(for: reply)
    try await notify(secondWake, subscriptions: subscriptions)

    if subscriptions.contains(where: { $0.filter.kinds == [LeaseSubscription.giftWrapKind] }) {
      let direct = try await sendDirectMessage()
      let directWake = try await wake(for: direct)
      try await notify(directWake, subscriptions: subscriptions)
    }

    let started = ContinuousClock.now
    let revoked = try await DemoFailure.at("revoked") { () async throws(CommandFailure) in
      try await self.enrollment.revoke()
    }
    guard revoked.result.accepted else { throw DemoFailure("revoked", revoked.result.message) }
    emit(
      "revoked", ["generation": .integer(revoked.lease.generation)],
      "the tombstone (generation \(revoked.lease.generation)) replaced the lease", since: started)

    let last = try await publishMention(text: "Anyone still here?")
    try await expectSilence(after: last)
  }

  /// Enrolls the account for mentions, the demo channel and direct messages (when the descriptor
  /// lists gift wraps) with a grant the gateway sealed when the app registered the device token
  /// and delegated it to the relay's push key on its real routes (the `discovered`, `granted` and
  /// `enrolled` steps); the lease's subscriptions, which are what the extension asks the relay for
  /// and selects by. The device is registered under the demo's app profile for both protocols.
  func enrollForTheDemoChannel() async throws(DemoFailure) -> [LeaseSubscription] {
    var started = ContinuousClock.now
    let descriptor = try await DemoFailure.at("discovered") { () async throws(CommandFailure) in
      try await self.enrollment.discover()
    }
    emit(
      "discovered",
      [
        "origin": .string(descriptor.origin), "exec": .string(descriptor.currentKey?.id ?? ""),
        "push_kinds": .array(descriptor.pushKinds.map { .integer(Int64($0)) }),
        "protocol": .string(descriptor.pushProtocol.rawValue),
      ],
      "the relay's NIP-11 document carries a valid push descriptor (origin \(descriptor.origin))",
      since: started)

    started = .now
    let (endpoint, expiresAt) = try await DemoFailure.at("granted") { () async throws(CommandFailure) in
      try await GrantSource.gateway(
        url: self.gateway.baseURL, deviceToken: Self.deviceToken, appProfile: Self.appProfile
      ).endpoint(for: descriptor, key: account, now: now())
    }
    emit(
      "granted", ["expires_at": .integer(expiresAt ?? 0)],
      "the gateway registered the device token and sealed an opaque endpoint grant for the relay's key "
        + "(NIP-98 by the account)", since: started)

    started = .now
    let enrolled = try await DemoFailure.at("enrolled") { () async throws(CommandFailure) in
      try await self.enrollment.enroll(
        descriptor: descriptor,
        appProfile: descriptor.pushProtocol == .nipPL ? Self.appProfile : nil, transport: "apns",
        endpoint: endpoint,
        grantExpiresAt: expiresAt, joined: [channel], muted: [], directMessages: true)
    }
    guard enrolled.result.accepted else { throw DemoFailure("enrolled", enrolled.result.message) }
    emit(
      "enrolled",
      [
        "d": .string(enrolled.lease.event.tagValues("d").first ?? ""),
        "generation": .integer(enrolled.lease.generation),
        "subscriptions": .integer(Int64(enrolled.lease.subscriptions.count)),
        "event_id": .string(enrolled.lease.event.id),
      ],
      "the NIP-44 lease (kind 30350) was accepted over WebSocket with NIP-42", since: started)
    return enrolled.lease.subscriptions
  }

  /// A channel message mentioning the account.
  func publishMention(text: String = "Lunch in the demo channel?") async throws(DemoFailure) -> Published {
    try await publish(
      content: "\(text) nostr:\(npub(account))", tags: [["h", channel], ["p", account.publicKeyHex]])
  }

  /// A thread reply to `root` in the demo channel.
  func publishReply(to root: Published) async throws(DemoFailure) -> Published {
    try await publish(
      content: "Replying in the thread: noon works.",
      tags: [["h", channel], ["e", root.event.id, "", "root"]])
  }

  // MARK: Steps

  /// The text of the demo's direct message.
  static let directMessageText = "Are you coming to lunch? Just between us."

  /// The second user's NIP-17 direct message to the account: a kind 14 rumor sealed by the sender
  /// and wrapped with a fresh one-time key, published over a connection authenticated (when asked)
  /// as that one-time key, never as the sender. The `published` line names the wrap. `backdate`
  /// sets the wrap's `created_at` back (random in 0–2 days by default, as NIP-59 asks).
  func sendDirectMessage(
    text: String = DemoPipeline.directMessageText, backdate: WrapBackdate = .random
  ) async throws(DemoFailure) -> Published {
    let now = self.now()
    let started = ContinuousClock.now
    let wrapper = GiftWrapper(sender: sender)
    let rumor = wrapper.chatRumor(to: [account.publicKeyHex], text: text, createdAt: now)
    let oneTimeKey = SecretKey.generate()
    let wrap: Event
    do throws(GiftWrapError) {
      wrap = try wrapper.wrap(
        rumor, for: account.publicKeyHex, now: now, backdate: backdate, oneTimeKey: oneTimeKey)
    } catch {
      throw DemoFailure("published", "cannot wrap the direct message: \(error)")
    }
    let acceptedAt = try await publish(wrap, as: oneTimeKey)
    emit(
      "published",
      [
        "event_id": .string(wrap.id), "kind": .integer(Int64(wrap.kind)), "author": .string(npub(sender)),
      ],
      "the second user's direct message (a NIP-17 gift wrap) was accepted", since: started)
    return Published(event: wrap, acceptedAt: acceptedAt)
  }

  /// A message the sender published, and when it was accepted.
  struct Published {
    let event: Event
    let acceptedAt: ContinuousClock.Instant
  }

  /// A wake the gateway sent to APNs (as recorded), and when.
  struct RecordedWake {
    let request: APNsRequest
    let requestID: String
    let eventID: String
    let recordedAt: ContinuousClock.Instant
  }

  private func publish(content: String, tags: [[String]]) async throws(DemoFailure) -> Published {
    let now = self.now()
    let started = ContinuousClock.now
    let event: Event
    do {
      event = try UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: now, kind: 9, tags: tags,
        content: content
      ).signed(with: sender)
    } catch {
      throw DemoFailure("published", "cannot sign the message: \(error)")
    }
    let acceptedAt = try await publish(event, as: sender)
    emit(
      "published", ["event_id": .string(event.id), "kind": .integer(9), "author": .string(npub(sender))],
      "the second user's message was accepted", since: started)
    return Published(event: event, acceptedAt: acceptedAt)
  }

  /// Publishes `event` over a connection authenticated (when the relay asks) as `key`; when the
  /// relay accepted it.
  func publish(_ event: Event, as key: SecretKey) async throws(DemoFailure) -> ContinuousClock.Instant {
    let deadline = ContinuousClock.now + Enrollment.stepTimeout
    let result: PublishResult
    do throws(RelayConnectionError) {
      let clock = self.clock
      let senderClock: RelayConnection.Clock = { clock?() ?? Int64(Date().timeIntervalSince1970) }
      result = try await RelayExchange.withConnection(
        to: relay.relayOrigin?.webSocketURL ?? "", key: key, clock: senderClock,
        deadline: deadline
      ) { connection throws(RelayConnectionError) in
        try await connection.publish(event, deadline: deadline)
      }
    } catch {
      throw DemoFailure("published", "\(error)")
    }
    guard result.accepted else { throw DemoFailure("published", result.message) }
    return ContinuousClock.now
  }

  /// The APNs request the gateway sent for `message` (found through the relay's outbox by its
  /// `apns-id`, answered 200), shown with its path, `apns-*` headers and body, its provider
  /// token verified with the run's public key.
  func wake(for message: Published) async throws(DemoFailure) -> RecordedWake {
    let deadline = ContinuousClock.now + Self.wakeTimeout
    while ContinuousClock.now < deadline {
      // The wake is found by the message's event id in the relay's outbox, not by "a request the
      // gateway did not send before": a signal-woken worker may deliver before this is called.
      let outbox = (try? relay.wakes()) ?? []
      let wakes = Set(outbox.filter { $0.candidate.eventID == message.event.id }.map(\.requestID))
      if let sent = gateway.transport.exchanges.first(where: {
        $0.status == 200 && wakes.contains($0.request.header("apns-id") ?? "")
      }),
        let requestID = sent.request.header("apns-id"),
        let row = outbox.first(where: { $0.requestID == requestID })
      {
        let recordedAt = ContinuousClock.now
        let token = try DemoProviderTokenCheck.verify(
          authorization: sent.request.header("authorization"), publicKey: gateway.signingPublicKey
        ).get()
        let apnsHeaders = sent.request.headers.filter { $0.name.hasPrefix("apns-") }
        emit(
          "wake",
          [
            "request_id": .string(requestID), "path": .string(sent.request.path),
            "headers": .object(
              JSONObject(apnsHeaders.map { JSONMember(key: $0.name, value: .string($0.value)) })),
            "apns_push_type": .string(sent.request.header("apns-push-type") ?? ""),
            "apns_priority": .integer(Int64(sent.request.header("apns-priority") ?? "") ?? 0),
            "payload": .string(String(decoding: sent.request.body, as: UTF8.self)),
            "jwt": .object(
              JSONObject([
                "alg": .string("ES256"), "kid": .string(token.keyID), "iss": .string(token.teamID),
                "iat": .integer(token.issuedAt), "verified": .bool(true),
              ])),
            "event_id": .string(row.candidate.eventID),
          ],
          "match → gateway → APNs: the relay matched the lease, the gateway sent a content-free request "
            + "to \(sent.request.path) with an ES256 provider token that verifies",
          since: message.acceptedAt)
        return RecordedWake(
          request: sent.request, requestID: requestID, eventID: row.candidate.eventID, recordedAt: recordedAt)
      }
      await whileWaiting()
      try? await Task.sleep(for: .milliseconds(10))
    }
    // Say what the relay and APNs saw, so that a missing wake can be told apart from a refused one.
    let rows = ((try? relay.wakes()) ?? []).map {
      "\($0.candidate.eventID.prefix(8)):\($0.state)/\($0.attempts)"
    }
    let answers = gateway.transport.exchanges.map { $0.status.map(String.init) ?? "failed" }
    throw DemoFailure(
      "wake",
      "no wake reached APNs within \(Self.wakeTimeout) (outbox: \(rows.joined(separator: ", ")); "
        + "APNs answers: \(answers.joined(separator: ", ")))")
  }

  /// What the extension does with a wake: resolve it with the lease's subscriptions and the shared
  /// cache, on the pipeline's clock.
  func resolveWake(subscriptions: [LeaseSubscription], social: SocialSettings = .none)
    async throws(DemoFailure)
    -> Resolution
  {
    var configuration: ResolverConfiguration
    let cache: EnrichmentCache?
    do {
      configuration = try ResolverConfiguration(
        relay: RelayOrigin(relay.origin ?? ""), secretKey: account, subscriptions: subscriptions,
        avatarDirectory: workspace + "/avatars")
      configuration.social = social
      // As an extension does: a cache that cannot be opened (locked, corrupt) means enriching
      // without it, never no notification.
      cache = try? EnrichmentCache(path: workspace + "/cache.sqlite", busyTimeout: .milliseconds(250))
    } catch {
      throw DemoFailure("notification", "cannot set up the extension: \(error)")
    }
    let clock = self.clock
    let unixClock = clock.map { read in UnixClock { read() * 1000 } } ?? .system
    return await NotificationResolver(configuration: configuration, cache: cache, clock: unixClock).resolve()
  }

  private func notify(_ wake: RecordedWake, subscriptions: [LeaseSubscription]) async throws(DemoFailure) {
    let resolution = try await resolveWake(subscriptions: subscriptions)
    guard case .resolved(let notification) = resolution.outcome else {
      throw DemoFailure("notification", "the extension fell back: \(resolution.outcome)")
    }
    // A direct message names the wrap the relay woke for; its target is the rumor.
    guard (resolution.plan.wrapID ?? notification.target.eventID) == wake.eventID else {
      throw DemoFailure(
        "notification", "presented \(notification.target.eventID), the wake was for \(wake.eventID)")
    }
    guard
      case .object(var line) = ResolveLine.json(
        resolution.plan, elapsedMilliseconds: resolution.elapsed.wholeMilliseconds)
    else { throw DemoFailure("notification", "no notification line") }
    line["request_id"] = .string(wake.requestID)
    output(
      JSONWriter.bytes(
        .object(JSONObject([JSONMember(key: "step", value: .string("notification"))] + line.members))))
    log(
      "demo: notification — APNs → resolved in \((ContinuousClock.now - wake.recordedAt).wholeMilliseconds) ms: "
        + "\"\(notification.title)\" \(notification.subtitle ?? "") (\(notification.enrichment.rawValue))")
    await resolution.lingering.wait(until: .now + Self.lingerLimit)
  }

  private func expectSilence(after message: Published) async throws(DemoFailure) {
    let known = gateway.transport.requests.count
    try? await Task.sleep(for: Self.silenceWindow)
    let woke = ((try? relay.wakes()) ?? []).contains { $0.candidate.eventID == message.event.id }
    guard gateway.transport.requests.count == known, !woke else {
      throw DemoFailure("silent", "a message after revocation caused a wake")
    }
    emit(
      "silent", ["event_id": .string(message.event.id)],
      "no wake within \(Self.silenceWindow) after revocation", since: message.acceptedAt)
  }

  // MARK: Helpers

  func emit(
    _ step: String, _ fields: KeyValuePairs<String, JSONValue>, _ sentence: String,
    since: ContinuousClock.Instant
  ) {
    let members =
      [JSONMember(key: "step", value: .string(step))]
      + fields.map { JSONMember(key: $0.key, value: $0.value) }
    output(JSONWriter.bytes(.object(JSONObject(members))))
    log("demo: \(step) — \(sentence) (\((ContinuousClock.now - since).wholeMilliseconds) ms)")
  }

  func npub(_ key: SecretKey) -> String {
    CompactNpub.canonicalNpub(key.publicKeyHex) ?? key.publicKeyHex
  }
}

/// The step the demo stopped at and why.
struct DemoFailure: Error {
  let step: String
  let message: String

  init(_ step: String, _ message: String) {
    self.step = step
    self.message = message
  }

  /// Runs an app step, reporting its failure at `step`.
  static func at<T>(_ step: String, _ body: () async throws(CommandFailure) -> T) async throws(DemoFailure)
    -> T
  {
    do {
      return try await body()
    } catch {
      throw DemoFailure(step, "\(error.code): \(error.message)")
    }
  }
}

extension APNsRequest {
  /// The value of the header `name` (lower-case), the first one.
  fileprivate func header(_ name: String) -> String? {
    headers.first { $0.name == name }?.value
  }
}
