import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import Testing

/// A push-mode relay serving a tenant origin from a process of its own (`relay --origin`,
/// `Docs/VendoringPushRelay.md` §PostgreSQL): clients reach it by the tenant's name, so its NIP-42 check takes a
/// `relay` tag naming the tenant origin as well as its own `ws://` URL, and no other.
@Suite(.timeLimit(.minutes(1))) struct TenantOriginAuthTests {
  static let tenant = "wss://relay.tenant.example"

  /// The demo relay in push mode with `tenant` as its origin; its own URL and a raw client that
  /// has read the AUTH challenge.
  static func start() async throws -> RelayFixtureServer {
    var push = RelayFixturePushMode(pushKey: SecretKey.generate())
    push.tenantOrigin = tenant
    let server = RelayFixtureServer(
      data: try RelayFixtureData.load(folder: PackageRoot.appending("Fixtures/demo")),
      configuration: RelayFixtureConfiguration(now: WebSocketScenario.now, push: push))
    _ = try await server.start()
    return server
  }

  @Test(arguments: [
    ("the tenant origin", tenant, true),
    ("the tenant origin with a trailing slash", tenant + "/", true),
    ("its own ws:// URL", "own", true),
    ("another host", "wss://relay.other.example", false),
    ("the tenant's host over ws://", "ws://relay.tenant.example", false),
  ])
  func acceptsARelayTagNamingTheTenantOrItself(name: String, relay: String, accepted: Bool) async throws {
    let server = try await Self.start()
    try await server.serving {
      let origin = try #require(server.origin)
      let port = try #require(origin.split(separator: ":").last.flatMap { Int($0) })
      let peer = try LoopbackPeer.connect(port: port)
      #expect(await peer.clientHandshake(port: port))
      let challengeFrame = await peer.readFrame(as: .client)
      guard case .auth(let challenge)? = challengeFrame.flatMap({ RelayMessage.parse($0.payload) }) else {
        Issue.record("no AUTH challenge")
        return
      }
      let key = SecretKey.generate()
      let own = "ws://127.0.0.1:\(port)"
      let event = try UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: WebSocketScenario.now, kind: 22242,
        tags: [["relay", relay == "own" ? own : relay], ["challenge", challenge]], content: ""
      ).signed(with: key)
      FixtureWebSocketTests.send(JSONWriter.string(.array([.string("AUTH"), event.jsonValue])), to: peer)
      let answer = await peer.readFrame(as: .client).flatMap { RelayMessage.parse($0.payload) }
      let message = accepted ? "" : "invalid: relay tag does not match"
      #expect(answer == .ok(eventID: event.id, accepted: accepted, message: message), "\(name)")
    }
  }
}
