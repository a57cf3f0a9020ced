import ChatApp
import Foundation
import NostrEvent
import NostrPushCore
import PushDescriptor
import PushLease

/// The whole run `chat-app` prints: the app half registers its device token with the push
/// gateway and gets a grant for the relay's push key, enrolls, moves to a new token (a new grant)
/// and rotates the lease, and revokes, against the fixture relay and a real `PushGateway`; the
/// extension half resolves each wake from what the app saved.
public enum ChatAppDemo {
  /// Runs every step and returns one line per step.
  public static func run() async throws -> [String] {
    let world = try await FixtureWorld.start()
    let container = FileManager.default.temporaryDirectory.appendingPathComponent(
      "chat-app-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: container) }
    do {
      let lines = try await steps(world, container: container)
      await world.stop()
      return lines
    } catch {
      await world.stop()
      throw error
    }
  }

  private static func steps(_ world: FixtureWorld, container: URL) async throws -> [String] {
    var lines: [String] = []
    let app = ChatAppSide(
      account: world.account, profile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns"),
      container: container, now: { FixtureWorld.now })
    let cachePath = container.appendingPathComponent("cache.sqlite").path
    func wake() async throws -> String {
      let plan = try await ChatExtension.resolveOneWake(
        accountFile: app.accountFile, secretKey: world.account, cachePath: cachePath,
        clock: .fixed(FixtureWorld.now))
      return "extension: " + ChatExtension.describe(plan)
    }

    let descriptor = try await app.discover(relay: world.relayURL)
    let key = try require(descriptor.currentKey)
    lines.append("app: discovered \(descriptor.pushProtocol.rawValue) push, current key \(key.id)")

    let gateway = try ChatGatewaySide(
      baseURL: world.gateway.baseURL, appProfile: LoopbackGateway.appProfile, account: world.account,
      now: { FixtureWorld.now }, appAttest: try world.gateway.device())
    let installation = try await gateway.register(deviceToken: firstDeviceToken)
    // The grant's generation is the one the lease that carries it will have.
    let grant = try await gateway.grant(
      installation: installation, relayPubkey: key.pubkey, generation: nextGeneration(app))
    lines.append(
      "gateway: registered the device token (epoch \(installation.endpointEpoch), App Attest \(LoopbackGateway.requiresAppAttest ? "attested" : "off")), granted the relay's key a \(grant.grant.prefix(3))… grant"
    )
    let carol = try require(NostrID(world.carol.publicKeyHex))
    let subscriptions = try app.plan(
      descriptor, joined: [FixtureWorld.channel, FixtureWorld.mutedChannel],
      mutedChannels: [FixtureWorld.mutedChannel], mutedSenders: [carol])
    lines.append("app: planned \(subscriptions.count) subscriptions (mentions, 1 channel, direct messages)")

    let first = try await app.enroll(
      descriptor, grant: grant, subscriptions: subscriptions, mutedSenders: [carol])
    lines.append("app: enrolled generation 1, accepted \(first.accepted)")
    // APNs handed the app a new token: the gateway moves the installation, the old grant stops
    // working, and the lease is rotated with a new one.
    let epoch = try await gateway.rotate(installation: installation, deviceToken: secondDeviceToken)
    let rotatedGrant = try await gateway.grant(
      installation: installation, relayPubkey: key.pubkey, generation: nextGeneration(app))
    lines.append(
      "gateway: moved to a new device token (epoch \(epoch)), new grant differs: \(rotatedGrant.grant != grant.grant)"
    )
    let rotated = try await app.enroll(
      descriptor, grant: rotatedGrant, subscriptions: subscriptions, mutedSenders: [carol])
    let saved = try EnrolledAccount(jsonBytes: Array(try Data(contentsOf: app.accountFile)))
    lines.append(
      "app: rotated to generation \(saved.generation), accepted \(rotated.accepted); saved \(saved.subscriptions.count) subscriptions, \(saved.mutedPubkeys.count) muted sender"
    )

    let mention = try world.message(by: world.alice, mentions: [world.account.publicKeyHex], "Lunch at noon?")
    lines.append(
      "relay: alice's mention woke the device: \(try await world.publishAndWoke(mention, by: world.alice))")
    lines.append(try await wake())

    let muted = try world.message(by: world.carol, mentions: [world.account.publicKeyHex], "are you there?")
    lines.append(
      "relay: carol's mention (muted sender) woke the device: \(try await world.publishAndWoke(muted, by: world.carol))"
    )
    lines.append(try await wake())

    let revoked = try await app.revoke(descriptor)
    lines.append("app: revoked, accepted \(revoked?.accepted == true)")
    try await gateway.revoke(installation: installation)
    lines.append("gateway: revoked the installation")
    let late = try world.message(by: world.alice, mentions: [world.account.publicKeyHex], "still there?")
    lines.append(
      "relay: after revoking, alice's mention woke the device: \(try await world.publishAndWoke(late, by: world.alice))"
    )
    return lines
  }
}

/// The demo's APNs device tokens (32 bytes in hex, as APNs hands them to an app).
let firstDeviceToken = String(repeating: "a1b2c3d4", count: 8)
/// The token APNs hands the app later.
let secondDeviceToken = String(repeating: "e5f60718", count: 8)

/// The generation of the app's next lease: the one a grant delegated now goes with.
func nextGeneration(_ app: ChatAppSide) -> Int64 {
  (app.loadEnrollment()?.lastGeneration ?? 0) + 1
}

/// `#require` for a demo: the value, or a thrown error when it is nil.
func require<Value>(_ value: Value?, _ what: StaticString = #function) throws -> Value {
  guard let value else { throw CocoaError(.coderValueNotFound) }
  return value
}
