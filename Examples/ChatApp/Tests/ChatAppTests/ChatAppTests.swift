import ChatApp
import ChatAppDemo
import Foundation
import NostrEvent
import NostrPushCore
import NotificationResolver
import PushDescriptor
import PushLease
import Testing

/// What `chat-app` prints, step by step: registered with the gateway and granted, enrolled, moved to
/// a new token and rotated, woken and shown, muted, revoked.
@Suite(.timeLimit(.minutes(2))) struct ChatAppRunTests {
  @Test func everyStepHappens() async throws {
    let lines = try await ChatAppDemo.run()
    #expect(
      lines == [
        "app: discovered nip-pl push, current key demo-2026-01",
        "gateway: registered the device token (epoch 1, App Attest attested), granted the relay's key a g1.… grant",
        "app: planned 3 subscriptions (mentions, 1 channel, direct messages)",
        "app: enrolled generation 1, accepted true",
        "gateway: moved to a new device token (epoch 2), new grant differs: true",
        "app: rotated to generation 2, accepted true; saved 3 subscriptions, 1 muted sender",
        "relay: alice's mention woke the device: true",
        "extension: shown: Alice Martin [#relay-dev]: Lunch at noon? (active)",
        "relay: carol's mention (muted sender) woke the device: false",
        "extension: nothing new: already_delivered",
        "app: revoked, accepted true",
        "gateway: revoked the installation",
        "relay: after revoking, alice's mention woke the device: false",
      ])
  }
}

/// A lease with a mention subscription and a muted sender's `ignore` filter behaves the same on
/// the relay fixture's matcher and in the extension: the same events wake and are shown, the
/// same stay quiet.
@Suite(.timeLimit(.minutes(2))) struct RelayAndExtensionAgreeTests {
  @Test func theSameEventsWakeAndShow() async throws {
    let world = try await FixtureWorld.start()
    let container = FileManager.default.temporaryDirectory.appendingPathComponent(
      "agree-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: container) }
    do {
      try await check(world, container: container)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  func check(_ world: FixtureWorld, container: URL) async throws {
    let app = ChatAppSide(
      account: world.account, profile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns"),
      container: container, now: { FixtureWorld.now })
    let descriptor = try await app.discover(relay: world.relayURL)
    let key = try #require(descriptor.currentKey)
    let gateway = try ChatGatewaySide(
      baseURL: world.gateway.baseURL, appProfile: LoopbackGateway.appProfile, account: world.account,
      now: { FixtureWorld.now }, appAttest: try world.gateway.device())
    let installation = try await gateway.register(deviceToken: String(repeating: "0f", count: 32))
    let grant = try await gateway.grant(installation: installation, relayPubkey: key.pubkey, generation: 1)
    let carol = try #require(NostrID(world.carol.publicKeyHex))
    // Mentions only (no channel joined), carol muted: her events are in every ignore list.
    let subscriptions = try app.plan(descriptor, joined: [], mutedChannels: [], mutedSenders: [carol])
    #expect(subscriptions.first?.ignore.contains { $0.authors == [carol.hex] } == true)
    #expect(
      try await app.enroll(
        descriptor, grant: grant, subscriptions: subscriptions,
        mutedSenders: [carol]
      ).accepted)

    let me = world.account.publicKeyHex
    let crowd = (0..<21).map { _ in SecretKey.generate().publicKeyHex }
    // Rule 1 (the channel's roster) is left out: the relay judges it by its own membership table,
    // while the extension sees only the kind 39002 rosters the relay serves, and presents a
    // message of a channel whose roster it cannot read (NotificationResolver: "an author when no
    // roster is known"), so a message the relay refused by roster can still be shown by a later wake.
    let cases: [(String, Event, SecretKey, Bool)] = [
      (
        "alice mentions the account", try world.message(by: world.alice, mentions: [me], age: 60, "hi"),
        world.alice, true
      ),
      (
        "carol (muted) mentions it", try world.message(by: world.carol, mentions: [me], age: 50, "hey"),
        world.carol, false
      ),
      (
        "alice writes without a mention", try world.message(by: world.alice, mentions: [], age: 40, "all"),
        world.alice, false
      ),
      (
        "alice mentions 22 people",
        try world.message(by: world.alice, mentions: [me] + crowd, age: 30, "crowd"), world.alice, false
      ),
      (
        "alice mentions it again", try world.message(by: world.alice, mentions: [me], age: 10, "again"),
        world.alice, true
      ),
    ]
    let cachePath = container.appendingPathComponent("cache.sqlite").path
    for (what, event, sender, expected) in cases {
      let woke = try await world.publishAndWoke(event, by: sender)
      let plan = try await ChatExtension.resolveOneWake(
        accountFile: app.accountFile, secretKey: world.account, cachePath: cachePath,
        clock: .fixed(FixtureWorld.now))
      let shown = plan.message?.target.eventID == event.id
      #expect(woke == expected, "relay: \(what)")
      #expect(shown == expected, "extension: \(what)")
    }
  }
}

/// The app's gateway side against the real `PushGateway`: what it refuses is refused with the
/// gateway's answer, and a revoked installation grants nothing more.
@Suite(.timeLimit(.minutes(2))) struct ChatGatewaySideTests {
  @Test func refusalsCarryTheGatewaysAnswer() async throws {
    let gateway = try await LoopbackGateway.start(now: FixtureWorld.now)
    do {
      try await check(gateway)
    } catch {
      await gateway.stop()
      throw error
    }
    await gateway.stop()
  }

  func check(_ gateway: LoopbackGateway) async throws {
    func side(_ account: SecretKey, attested: Bool = true) throws -> ChatGatewaySide {
      try ChatGatewaySide(
        baseURL: gateway.baseURL, appProfile: LoopbackGateway.appProfile, account: account,
        now: { FixtureWorld.now }, appAttest: attested ? try gateway.device() : nil)
    }
    let owner = try side(SecretKey.generate())
    let token = String(repeating: "7c", count: 32)
    // The gateway requires App Attest (on Linux): an app without the provider is refused.
    if LoopbackGateway.requiresAppAttest {
      let plain = await #expect(throws: ChatGatewaySide.Refused.self) {
        _ = try await side(SecretKey.generate(), attested: false).register(deviceToken: token)
      }
      #expect(plain?.description == "register: attestationRequired")
    }
    let relay = SecretKey.generate().publicKeyHex
    let installation = try await owner.register(deviceToken: token)
    #expect(installation.endpointEpoch == 1)
    let grant = try await owner.grant(installation: installation, relayPubkey: relay, generation: 3)
    #expect(grant.grant.hasPrefix("g1.") && !grant.grant.contains(token))
    #expect(grant.expiresAt == FixtureWorld.now + 7 * 86_400)
    // Another account cannot take the same device token while it is live.
    let taken = await #expect(throws: ChatGatewaySide.Refused.self) {
      _ = try await side(SecretKey.generate()).register(deviceToken: token)
    }
    #expect(taken?.description == "register: installationConflict")
    // A lower generation than the gateway holds is stale.
    let stale = await #expect(throws: ChatGatewaySide.Refused.self) {
      _ = try await owner.grant(installation: installation, relayPubkey: relay, generation: 2)
    }
    #expect(stale?.description == "delegate: staleGeneration")
    try await owner.revoke(installation: installation)
    let gone = await #expect(throws: ChatGatewaySide.Refused.self) {
      _ = try await owner.grant(installation: installation, relayPubkey: relay, generation: 4)
    }
    #expect(gone?.description == "delegate: notFound")
  }
}
