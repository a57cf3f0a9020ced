import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTesting
import NostrWebSocket
import PushRelay

/// TEST FIXTURES, not production: the loopback fixture relay (in push mode) from
/// `NostrPushTesting`, serving the repository's `Fixtures/demo/` data set with its published TEST
/// keys, and the production `PushGateway` on loopback with APNs recorded (``LoopbackGateway``).
/// A real app talks to a real relay and its own deployed gateway instead.
public final class FixtureWorld: Sendable {
  /// The demo data set's base time; the world runs four days later, so the demo's own messages
  /// are past the extension's presentation window and only this run's messages are shown.
  public static let now: Int64 = 1_767_225_600 + 4 * 86_400
  /// The demo channel (its roster: alice, the account, carol).
  public static let channel = "3f6c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13"
  /// A second channel the account joined and muted.
  public static let mutedChannel = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"

  /// The repository's `Fixtures/demo/` folder (this file is `Examples/ChatApp/Sources/ChatAppDemo/`).
  public static let demoFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/demo")

  /// The fixture relay.
  public let relay: RelayFixtureServer
  /// The push gateway the app registers with (the relay delivers no wake to it in this world:
  /// its wakes stay in the relay's outbox for the run to inspect).
  public let gateway: LoopbackGateway
  /// The relay's URL (`http://127.0.0.1:<free port>`).
  public let relayURL: String
  /// The TEST keys of `Fixtures/demo/keys.json`: the app's account, alice and carol.
  public let account: SecretKey, alice: SecretKey, carol: SecretKey

  private init(
    relay: RelayFixtureServer, gateway: LoopbackGateway, relayURL: String, keys: [String: SecretKey]
  ) {
    self.relay = relay
    self.gateway = gateway
    self.relayURL = relayURL
    account = keys["account"]!
    alice = keys["alice"]!
    carol = keys["carol"]!
  }

  /// Starts the relay (push mode, the demo relay key as its push key) and the gateway.
  public static func start() async throws -> FixtureWorld {
    let keysJSON = try JSONReader().read(
      Array(try Data(contentsOf: demoFolder.appendingPathComponent("keys.json"))))
    var keys: [String: SecretKey] = [:]
    for name in ["relay", "account", "alice", "carol"] {
      guard let hex = keysJSON.objectValue?[name]?.objectValue?["secret_key"]?.stringValue else {
        throw CocoaError(.fileReadCorruptFile)
      }
      keys[name] = try SecretKey(hex: hex)
    }
    let relay = RelayFixtureServer(
      data: try RelayFixtureData.load(folder: demoFolder),
      configuration: RelayFixtureConfiguration(now: now, push: RelayFixturePushMode(pushKey: keys["relay"]!)))
    let url = try await relay.start()
    let gateway: LoopbackGateway
    do {
      gateway = try await LoopbackGateway.start(now: now)
    } catch {
      await relay.stop()
      throw error
    }
    return FixtureWorld(relay: relay, gateway: gateway, relayURL: url.absoluteString, keys: keys)
  }

  /// Stops both fixtures.
  public func stop() async {
    await relay.stop()
    await gateway.stop()
  }

  /// A kind 9 by `sender` in `channel` at `now − age`, tagging each of `mentions`.
  public func message(
    by sender: SecretKey, in channel: String = FixtureWorld.channel, mentions: [String], age: Int64 = 1,
    _ content: String
  ) throws -> Event {
    try UnsignedEvent(
      pubkey: sender.publicKeyHex, createdAt: Self.now - age, kind: 9,
      tags: [["h", channel]] + mentions.map { ["p", $0] }, content: content
    ).signed(with: sender)
  }

  /// Publishes `event` as its author would, and returns whether the relay woke the account for it
  /// (a new wake row for that event id).
  public func publishAndWoke(_ event: Event, by sender: SecretKey) async throws -> Bool {
    let before = try relay.wakes().count
    let connection = try await RelayConnection.connect(
      to: relayURL.replacingOccurrences(of: "http://", with: "ws://"), key: sender,
      clock: { FixtureWorld.now },
      deadline: .now + .seconds(10))
    let result = try await connection.publish(event, deadline: .now + .seconds(10))
    await connection.close()
    guard result.accepted else { throw CocoaError(.fileWriteUnknown) }
    let wakes = try relay.wakes()
    return wakes.count > before && wakes.last?.candidate.eventID == event.id
  }
}
