import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import NostrWebSocket
import NotificationResolver
import PushDescriptor
import PushLease

/// `nostr-push demo --social`: a social world through every hop on loopback (the fixture relay in
/// push mode, the gateway fixture, the resolver) — a mention, a reply, a reaction, a repost, a
/// validated zap and an unvalidated zap — each checked against the social table.
///
/// Decisions: the relay serves the demo descriptor with the social kinds added to `push_kinds`
/// (``socialDocument(_:)``); the account enrolls through `SubscriptionPlanner.socialPlan` (mentions
/// time-sensitive, the rest default); the zapper is a key of the demo's own, trusted by the
/// extension as the account's LNURL `nostrPubkey`; the unvalidated zap is the same zap signed by
/// another key. A line's title is checked against `NotificationStrings` with the name the
/// notification gives its sender, so a slow profile fetch cannot fail the run, but a wrong row can.
struct SocialDemo {
  /// The kinds the social demo's descriptor adds to `push_kinds`.
  static let socialKinds = [
    EventKind.textNote, EventKind.repost, EventKind.reaction, EventKind.genericRepost, EventKind.comment,
    EventKind.zapReceipt,
  ]

  let pipeline: DemoPipeline
  /// The account's zapper (its LNURL server's key, a fresh one per run).
  let zapper = SecretKey.generate()

  /// The demo's NIP-11 document with the social kinds added to its `push.push_kinds`.
  static func socialDocument(_ nip11: [UInt8]?) throws -> [UInt8] {
    guard let nip11, case .object(var document) = try JSONReader().read(nip11),
      case .object(var push)? = document["push"], case .array(let kinds)? = push["push_kinds"]
    else { throw StateFileError("Fixtures/demo/nip11.json has no push.push_kinds") }
    let known = Set(kinds.compactMap(\.integerValue))
    push["push_kinds"] = .array(
      kinds + socialKinds.filter { !known.contains(Int64($0)) }.map { .integer(Int64($0)) })
    document["push"] = .object(push)
    return JSONWriter.bytes(.object(document))
  }

  /// Runs every step; true when each showed as the table says.
  func run() async -> Bool {
    do throws(DemoFailure) {
      try await script()
      return true
    } catch {
      pipeline.output(
        JSONWriter.bytes(
          .object(
            JSONObject([
              "step": .string("failed"), "at": .string(error.step), "message": .string(error.message),
            ]))))
      pipeline.log("demo: failed at \(error.step): \(error.message)")
      return false
    }
  }

  private func script() async throws(DemoFailure) {
    let subscriptions = try await enroll()
    let account = pipeline.account.publicKeyHex
    let sender = pipeline.sender
    let now = pipeline.now()
    // The account's own note: reacted to, reposted and zapped below (it wakes no one).
    let own = try sign(
      pipeline.account, kind: EventKind.textNote, content: "Shipping social push today.", now - 5)
    _ = try await pipeline.publish(own, as: pipeline.account)
    let strings = NotificationStrings.english
    let toAccount = ["p", account]

    let mention = try sign(
      sender, kind: EventKind.textNote, content: "Have you seen this, friend?", now, [toAccount])
    try await show(mention, as: sender, subscriptions) { plan, name in
      (plan.title == strings.mentioned(name) && plan.userInfo["social_kind"] == "mention", "mention")
    }
    let reply = try sign(
      sender, kind: EventKind.textNote, content: "Congrats on the launch!", now,
      [["e", own.id, "", "root"], toAccount])
    try await show(reply, as: sender, subscriptions) { plan, name in
      (plan.title == strings.reply(name) && plan.userInfo["root_id"] == own.id, "reply")
    }
    let reaction = try sign(sender, kind: EventKind.reaction, content: "+", now, [["e", own.id], toAccount])
    try await show(reaction, as: sender, subscriptions) { plan, name in
      (plan.title == strings.reacted(name, "❤️") && plan.body == own.content, "reaction")
    }
    let repost = try sign(
      sender, kind: EventKind.repost, content: String(decoding: own.jsonBytes(), as: UTF8.self), now,
      [["e", own.id], toAccount])
    try await show(repost, as: sender, subscriptions) { plan, name in
      (
        plan.title == strings.reposted(name) && plan.body == own.content && plan.relevanceScore == 0.3,
        "repost"
      )
    }
    let validated = try zap(signer: zapper, now: now, target: own.id)
    try await show(validated, as: zapper, subscriptions) { plan, name in
      (plan.title == strings.zapped(name, sats: 21_000) && plan.relevanceScore == 0.8, "validated zap")
    }
    let unvalidated = try zap(signer: SecretKey.generate(), now: now, target: own.id)
    try await show(unvalidated, as: sender, subscriptions) { plan, name in
      (plan.title == strings.zapped(name) && plan.relevanceScore == 0.5, "unvalidated zap")
    }
  }

  /// Discovers, obtains a grant and enrolls the social plan (the `discovered`, `granted` and
  /// `enrolled` steps); the lease's subscriptions.
  private func enroll() async throws(DemoFailure) -> [LeaseSubscription] {
    let gatewayURL = pipeline.gateway.baseURL
    var started = ContinuousClock.now
    let descriptor = try await DemoFailure.at("discovered") { () async throws(CommandFailure) in
      try await pipeline.enrollment.discover()
    }
    pipeline.emit(
      "discovered", ["push_kinds": .array(descriptor.pushKinds.map { .integer(Int64($0)) })],
      "the descriptor lists the social kinds", since: started)
    started = .now
    let (endpoint, expiresAt) = try await DemoFailure.at("granted") { () async throws(CommandFailure) in
      try await GrantSource.gateway(
        url: gatewayURL, deviceToken: DemoPipeline.deviceToken, appProfile: DemoPipeline.appProfile
      ).endpoint(
        for: descriptor, key: pipeline.account, now: pipeline.now())
    }
    pipeline.emit(
      "granted", ["expires_at": .integer(expiresAt ?? 0)], "the gateway sealed a grant", since: started)
    started = .now
    let plan: SocialPlan
    do throws(LeaseBuildError) {
      plan = try SubscriptionPlanner(descriptor: descriptor).socialPlan(
        for: pipeline.account.publicKeyHex,
        options: SocialPlanOptions(
          notifications: [
            .mentions: .timeSensitive, .comments: .timeSensitive, .reactions: .default, .reposts: .default,
            .zaps: .default,
          ], pTagsMax: 20))
    } catch {
      throw DemoFailure("enrolled", "\(error)")
    }
    let enrolled = try await DemoFailure.at("enrolled") { () async throws(CommandFailure) in
      try await pipeline.enrollment.enroll(
        descriptor: descriptor, appProfile: DemoPipeline.appProfile, transport: "apns", endpoint: endpoint,
        grantExpiresAt: expiresAt, subscriptions: plan.subscriptions)
    }
    guard enrolled.result.accepted else { throw DemoFailure("enrolled", enrolled.result.message) }
    pipeline.emit(
      "enrolled", ["subscriptions": .integer(Int64(plan.subscriptions.count))],
      "the social lease was accepted", since: started)
    return plan.subscriptions
  }

  /// Publishes `event` as `key`, waits for its wake, resolves it and checks the plan with
  /// `expected` (given the plan and the name the notification gives its sender).
  private func show(
    _ event: Event, as key: SecretKey, _ subscriptions: [LeaseSubscription],
    expected: (NotificationPlan, String) -> (Bool, String)
  ) async throws(DemoFailure) {
    let acceptedAt = try await pipeline.publish(event, as: key)
    pipeline.emit(
      "published", ["event_id": .string(event.id), "kind": .integer(Int64(event.kind))],
      "kind \(event.kind) was accepted", since: acceptedAt)
    let wake = try await pipeline.wake(for: DemoPipeline.Published(event: event, acceptedAt: acceptedAt))
    let social: SocialSettings
    do throws(ResolverError) {
      social = try SocialSettings(zapperPubkeys: [zapper.publicKeyHex])
    } catch {
      throw DemoFailure("notification", "\(error)")
    }
    let resolution = try await pipeline.resolveWake(subscriptions: subscriptions, social: social)
    let plan = resolution.plan
    guard let message = plan.message, message.target.eventID == wake.eventID else {
      throw DemoFailure("notification", "kind \(event.kind) did not show: \(plan.outcome)")
    }
    let (holds, row) = expected(plan, message.social?.senderName ?? "")
    guard holds else {
      throw DemoFailure("notification", "the \(row) row does not hold: \"\(plan.title)\" / \"\(plan.body)\"")
    }
    if case .object(var line) = ResolveLine.json(
      plan, elapsedMilliseconds: resolution.elapsed.wholeMilliseconds)
    {
      line["request_id"] = .string(wake.requestID)
      pipeline.output(
        JSONWriter.bytes(
          .object(JSONObject([JSONMember(key: "step", value: .string("notification"))] + line.members))))
    }
    pipeline.log("demo: notification — \(row): \"\(plan.title)\"")
    await resolution.lingering.wait(until: .now + DemoPipeline.lingerLimit)
  }

  private func sign(
    _ key: SecretKey, kind: Int, content: String, _ createdAt: Int64, _ tags: [[String]] = []
  ) throws(DemoFailure) -> Event {
    do {
      return try UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: createdAt, kind: kind, tags: tags, content: content
      )
      .signed(with: key)
    } catch {
      throw DemoFailure("published", "cannot sign kind \(kind): \(error)")
    }
  }

  /// A 21 000-sat zap of `target` by the sender, its receipt signed by `signer`.
  private func zap(signer: SecretKey, now: Int64, target: String) throws(DemoFailure) -> Event {
    do {
      let request = try ZapFixture.request(
        by: pipeline.sender, to: pipeline.account.publicKeyHex, target: target, amount: 21_000_000,
        comment: "Worth every sat", createdAt: now)
      return try ZapFixture.receipt(
        for: request, by: signer, to: pipeline.account.publicKeyHex, invoiceAmount: "210u", createdAt: now)
    } catch {
      throw DemoFailure("published", "cannot make the zap: \(error)")
    }
  }
}
