import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTesting
import PushDescriptor
import PushLease
import PushRelay
import RelayHost

/// TEST FIXTURES, not production: the run `relay-host` prints. A relay host over a temporary state
/// file delivers to the gateway fixture (`NostrPushTesting`) on a manual clock; an app's lease and
/// a sender's message are made here with fresh keys.
public enum RelayHostDemo {
  /// The run's start time.
  public static let start: Int64 = 1_767_226_200
  /// The channel the message is sent in.
  public static let channel = "5c1c2a4e-8f3b-4c2d-9a7e-1b2c3d4e5f60"

  /// Runs every step and returns one line per step.
  public static func run() async throws -> [String] {
    let clock = ManualUnixClock(seconds: start)
    let gateway = try GatewayFixture(clock: { clock.seconds })
    let gatewayURL = try await gateway.start()
    let statePath = FileManager.default.temporaryDirectory.appendingPathComponent(
      "relay-host-\(UUID().uuidString).sqlite"
    ).path
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: statePath + suffix) }
    }
    return try await gateway.serving {
      try await steps(
        clock: clock, gateway: gateway, gatewayURL: gatewayURL.absoluteString, statePath: statePath)
    }
  }

  private static func steps(
    clock: ManualUnixClock, gateway: GatewayFixture, gatewayURL: String, statePath: String
  ) async throws -> [String] {
    var lines: [String] = []
    let pushKey = SecretKey.generate()
    let account = SecretKey.generate()
    let sender = SecretKey.generate()
    let profile = PushAppProfile(id: "com.example.chat", transport: "apns")
    let descriptor = PushDescriptor(
      origin: "wss://relay.example",
      keys: [PushKey(id: "2026-01", pubkey: pushKey.publicKeyHex, current: true)],
      appProfiles: [profile], pushKinds: PushDescriptor.requiredPushKinds, urgentKinds: [],
      classSupport: PushClassSupport(apns: [.silent, .default, .timeSensitive]),
      limitation: PushLimitation(
        maxLeaseTTL: 2_592_000, maxLeasesPerPubkey: 8, maxSubscriptionsPerLease: 4, maxKinds: 8,
        maxAuthors: 64,
        maxH: 32, maxTagValues: 64, maxIgnore: 256, maxContentLen: 65_536, maxPlaintextLen: 4096,
        maxEndpointLen: 512, maxStringLen: 256))
    let host = try RelayHost(
      information: RelayInformation(lenient: JSONObject(["name": .string("relay.example")])),
      descriptor: descriptor,
      pushKeys: ["2026-01": pushKey], statePath: statePath,
      roster: ChannelRosters([channel: [account.publicKeyHex, sender.publicKeyHex]]), gatewayURL: gatewayURL,
      clock: clock.clock)
    let served = try RelayDocument(bytes: host.informationDocument())
    lines.append(
      "relay: serves NIP-11 with \(served.push.pushProtocol.rawValue) push, read back equal: \(served.push == descriptor)"
    )

    // The app's side, in short (Examples/ChatApp has it whole): a grant, a mentions-only lease.
    let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "a1b2c3d4")
    let lease = try LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
      endpoint: grant.grant,
      subscriptions: try SubscriptionPlanner(descriptor: descriptor).plan(
        for: account.publicKeyHex, joined: [], mentionsOnly: true),
      generation: 1, createdAt: clock.seconds, installationID: .generate(), now: clock.seconds,
      signer: account)
    guard let verified = VerifiedEvent(lease) else { throw CocoaError(.coderInvalidValue) }
    let stranger = host.handle(verified, identity: sender.publicKeyHex, receivedAt: clock.seconds)
    lines.append("relay: the lease sent by another identity: \(stranger.accepted) \(stranger.message)")
    let accepted = host.handle(verified, identity: account.publicKeyHex, receivedAt: clock.seconds)
    lines.append("relay: the lease from its author: \(accepted.accepted)")

    let mention = try UnsignedEvent(
      pubkey: sender.publicKeyHex, createdAt: clock.seconds, kind: 9,
      tags: [["h", channel], ["p", account.publicKeyHex]], content: "ping"
    ).signed(with: sender)
    guard let verifiedMention = VerifiedEvent(mention) else { throw CocoaError(.coderInvalidValue) }
    _ = host.handle(verifiedMention, identity: sender.publicKeyHex, receivedAt: clock.seconds)
    let wakes = try host.outbox.wakes()
    lines.append(
      "relay: the mention enqueued \(wakes.count) wake for event \(wakes.first?.candidate.eventID == mention.id ? "ping" : "?")"
    )

    // docs: deliver begin
    // The gateway asks for 5 s once; the worker's next sweep waits for the clock.
    gateway.script([GatewayScriptEntry(status: 503, body: #"{"status":"retry","retry_after_seconds":5}"#)])
    let first = try await host.push.deliverOnce()  // attempt 1: 503
    let early = try await host.push.deliverOnce()  // nothing due yet
    clock.advance(by: .seconds(5))
    let second = try await host.push.deliverOnce()  // attempt 2, the same request_id: accepted
    // docs: deliver end
    lines.append(
      "worker: attempt \(first.map(\.attempt)) answered \(first.map { "\($0.answer.map { "\($0)" } ?? "nil")" })"
    )
    lines.append("worker: a sweep before the backoff passed sent \(early.count)")
    lines.append(
      "worker: attempt \(second.map(\.attempt)) answered \(second.map { "\($0.answer.map { "\($0)" } ?? "nil")" })"
    )
    let deliveries = gateway.deliveries()
    lines.append(
      "gateway: \(gateway.requests().map(\.status)) for one request_id; \(deliveries.count) APNs request, apns-id is the wake's request_id: \(deliveries.first?.headers["apns-id"] == wakes.first?.requestID)"
    )
    return lines
  }
}
