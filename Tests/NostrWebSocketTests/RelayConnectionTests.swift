import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import Testing

/// A fixture relay with a few signed events, and connections to its WebSocket endpoint.
struct WebSocketScenario: LoopbackFixture {
  /// The fixture's fixed clock.
  static let now: Int64 = 1_767_226_600

  let author = SecretKey.generate()
  let stranger = SecretKey.generate()
  let server: RelayFixtureServer
  let url: String
  let messages: [Event]
  let lease: Event

  init(authRequiredKinds: Set<Int> = []) async throws {
    let author = self.author
    messages = try (0..<3).map { index in
      try UnsignedEvent(
        pubkey: author.publicKeyHex, createdAt: Self.now - 100 + Int64(index), kind: 9, tags: [],
        content: "message \(index)"
      ).signed(with: author)
    }
    lease = try UnsignedEvent(
      pubkey: author.publicKeyHex, createdAt: Self.now - 50, kind: 4, tags: [], content: "author only"
    ).signed(with: author)
    var data = RelayFixtureData()
    data.authRequiredKinds = authRequiredKinds
    server = RelayFixtureServer(data: data, configuration: RelayFixtureConfiguration(now: Self.now))
    try await server.start()
    try server.add(messages + [lease])
    url = try #require(server.relayOrigin).webSocketURL
  }

  /// The fixture's loopback port.
  var port: Int { Int(url.split(separator: ":").last!)! }

  func stop() async { await server.stop() }

  func connect(key: SecretKey? = nil) async throws -> RelayConnection {
    try await RelayConnection.connect(to: url, key: key, clock: { Self.now }, deadline: .now + .seconds(10))
  }

  /// Waits (polling, at most 10 s) until the fixture serves `count` connections.
  func waitForConnections(_ count: Int) async -> Bool {
    await Polling.eventually(within: .seconds(10)) { server.activeConnections == count }
  }
}

@Suite(.timeLimit(.minutes(1))) struct RelayConnectionTests {
  @Test func queriesStoredEventsNewestFirstAndClosesTheSubscription() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let connection = try await scenario.connect()
      let events = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(10))
      #expect(events.map(\.id) == scenario.messages.reversed().map(\.id))
      let counters = await connection.counters
      #expect(counters.events == 3)
      #expect(counters.dropped == 0)
      let again = try await connection.query([Filter(kinds: [9], limit: 1)], deadline: .now + .seconds(10))
      #expect(again.map(\.id) == [scenario.messages[2].id])
      await connection.close()
    }
  }

  @Test func refusesFilterCountsOutsideOneToAHundred() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let connection = try await scenario.connect()
      for filters in [[], Array(repeating: Filter(), count: 101)] {
        let error = await #expect(throws: RelayConnectionError.self) {
          _ = try await connection.query(filters, deadline: .now + .seconds(5))
        }
        #expect(error?.code == .invalidFilters)
      }
      await connection.close()
    }
  }

  @Test func publishesAndGetsTheRelaysOK() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let connection = try await scenario.connect()
      let event = try UnsignedEvent(
        pubkey: scenario.stranger.publicKeyHex, createdAt: WebSocketScenario.now, kind: 1, tags: [],
        content: "hi"
      ).signed(with: scenario.stranger)
      let first = try await connection.publish(event, deadline: .now + .seconds(10))
      #expect(first == PublishResult(id: event.id, accepted: true, message: ""))
      let second = try await connection.publish(event, deadline: .now + .seconds(10))
      #expect(
        second == PublishResult(id: event.id, accepted: true, message: "duplicate: already have this event"))
      let stale = try UnsignedEvent(
        pubkey: scenario.stranger.publicKeyHex, createdAt: WebSocketScenario.now - 2000, kind: 1, tags: [],
        content: "old"
      ).signed(with: scenario.stranger)
      let refused = try await connection.publish(stale, deadline: .now + .seconds(10))
      #expect(refused.accepted == false)
      #expect(refused.message == "invalid: event timestamp too far from server time")
      let found = try await connection.query([Filter(ids: [event.id])], deadline: .now + .seconds(10))
      #expect(found.map(\.id) == [event.id])
      await connection.close()
    }
  }

  @Test func refusesToPublishAnEventThatDoesNotVerify() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let connection = try await scenario.connect()
      var object = scenario.messages[0].jsonValue.objectValue!
      object["content"] = .string("tampered")
      let forged = try Event(jsonValue: .object(object))
      let error = await #expect(throws: RelayConnectionError.self) {
        _ = try await connection.publish(forged, deadline: .now + .seconds(5))
      }
      #expect(error?.code == .invalidEvent)
      await connection.close()
    }
  }

  @Test func authenticatesAndRetriesOnceWhenAuthIsRequired() async throws {
    try await withStarted(try await WebSocketScenario(authRequiredKinds: [4])) { scenario in
      let connection = try await scenario.connect(key: scenario.author)
      let filter = Filter(authors: [scenario.author.publicKeyHex], kinds: [4])
      let events = try await connection.query([filter], deadline: .now + .seconds(10))
      #expect(events.map(\.id) == [scenario.lease.id])
      #expect(await connection.authenticatedPubkey == scenario.author.publicKeyHex)
      await connection.close()
    }
  }

  @Test func failsAuthRequiredWithoutAKey() async throws {
    try await withStarted(try await WebSocketScenario(authRequiredKinds: [4])) { scenario in
      let connection = try await scenario.connect()
      let filter = Filter(authors: [scenario.author.publicKeyHex], kinds: [4])
      let error = await #expect(throws: RelayConnectionError.self) {
        _ = try await connection.query([filter], deadline: .now + .seconds(10))
      }
      #expect(error?.code == .authRequired)
      #expect(error?.message == "auth-required: not authenticated")
      await connection.close()
    }
  }

  @Test func refusesAnotherAuthorsAuthorOnlyEvents() async throws {
    try await withStarted(try await WebSocketScenario(authRequiredKinds: [4])) { scenario in
      let connection = try await scenario.connect(key: scenario.stranger)
      let error = await #expect(throws: RelayConnectionError.self) {
        _ = try await connection.query(
          [Filter(authors: [scenario.author.publicKeyHex], kinds: [4])], deadline: .now + .seconds(10))
      }
      #expect(error?.code == .subscriptionClosed)
      #expect(error?.message == "restricted: author-only kinds require authors=[self]")
      let mixed = try await connection.query([Filter(kinds: [9, 4])], deadline: .now + .seconds(10))
      #expect(mixed.count == 3)
      #expect(!mixed.contains { $0.id == scenario.lease.id })
      await connection.close()
    }
  }

  @Test func cancellingOneQueryClosesItsSubscriptionAndKeepsTheSocket() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      scenario.server.setFaults([
        RelayFault(path: "ws", kind: 9, action: .delay(milliseconds: 1500), times: 1)
      ])
      let connection = try await scenario.connect()
      let task = Task { try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(30)) }
      #expect(await Polling.eventually(within: .seconds(10)) { scenario.server.openSubscriptions == 1 })
      task.cancel()
      let error = await #expect(throws: RelayConnectionError.self) { _ = try await task.value }
      #expect(error?.code == .cancelled)
      #expect(await Polling.eventually(within: .seconds(10)) { scenario.server.openSubscriptions == 0 })
      let events = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(10))
      #expect(events.count == 3)
      #expect(await connection.counters.ignored == 4)
      #expect(scenario.server.activeConnections == 1)
      await connection.close()
    }
  }

  @Test func timesOutAQueryAndKeepsTheSocket() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      scenario.server.setFaults([
        RelayFault(path: "ws", kind: 9, action: .delay(milliseconds: 1000), times: 1)
      ])
      let connection = try await scenario.connect()
      let error = await #expect(throws: RelayConnectionError.self) {
        _ = try await connection.query([Filter(kinds: [9])], deadline: .now + .milliseconds(200))
      }
      #expect(error?.code == .timeout)
      let events = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(10))
      #expect(events.count == 3)
      await connection.close()
    }
  }

  @Test(arguments: [
    (RelayFault.Action.closeConnection, "connection_closed"),
    (.truncatedBody, "connection_closed"),
    (.oversizedBody(bytes: 5 * 1024 * 1024, declaresLength: false), "message_too_large"),
  ])
  func reportsAWebSocketFault(action: RelayFault.Action, code: String) async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      scenario.server.setFaults([RelayFault(path: "ws", kind: 9, action: action)])
      let connection = try await scenario.connect()
      let error = await #expect(throws: RelayConnectionError.self) {
        _ = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(10))
      }
      #expect(error?.code.rawValue == code)
      await connection.close()
    }
  }

  @Test func dropsForgedAndUnmatchedEvents() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      var object = scenario.messages[0].jsonValue.objectValue!
      object["content"] = .string("forged")
      object["id"] = .string(String(repeating: "ab", count: 32))
      let forged = try Event(jsonValue: .object(object))
      try scenario.server.add([forged])
      let connection = try await scenario.connect()
      let events = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(10))
      #expect(events.count == 3)
      #expect(!events.contains { $0.content == "forged" })
      #expect(await connection.counters.dropped == 1)
      await connection.close()
    }
  }

  @Test func releasingTheConnectionClosesTheSocket() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario async throws in
      let owner = Task {
        let connection = try await scenario.connect()
        return try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(10)).count
      }
      #expect(try await owner.value == 3)
      #expect(await scenario.waitForConnections(0))
    }
  }

  @Test func closingTheOwnerClosesTheSocketAndEndsPendingWork() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let connection = try await scenario.connect()
      #expect(await scenario.waitForConnections(1))
      await connection.close()
      #expect(await scenario.waitForConnections(0))
      let error = await #expect(throws: RelayConnectionError.self) {
        _ = try await connection.query([Filter()], deadline: .now + .seconds(5))
      }
      #expect(error?.code == .connectionClosed)
    }
  }

  @Test func sendsStoredEventsToOpenSubscriptionsOfOtherClients() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let peer = try LoopbackPeer.connect(port: scenario.port)
      #expect(await peer.clientHandshake(port: scenario.port))
      #expect(await peer.readFrame(as: .client)?.payload.starts(with: Array("[\"AUTH\"".utf8)) == true)
      peer.send(
        WebSocketFrameEncoder.textMessage(Array("[\"REQ\",\"live\",{\"kinds\":[1]}]".utf8), role: .client)[0])
      #expect(await peer.readFrame(as: .client)?.payload == Array("[\"EOSE\",\"live\"]".utf8))
      let connection = try await scenario.connect()
      let event = try UnsignedEvent(
        pubkey: scenario.stranger.publicKeyHex, createdAt: WebSocketScenario.now, kind: 1, tags: [],
        content: "live"
      ).signed(with: scenario.stranger)
      _ = try await connection.publish(event, deadline: .now + .seconds(10))
      let pushed = await peer.readFrame(as: .client)
      #expect(pushed?.payload == Array("[\"EVENT\",\"live\",".utf8) + event.jsonBytes() + [UInt8(ascii: "]")])
      await connection.close()
    }
  }
}

/// The fixture's side of the frame and NIP-42 rules, driven by a raw client.
@Suite(.timeLimit(.minutes(1))) struct FixtureWebSocketTests {
  static func rawClient(_ scenario: WebSocketScenario) async throws -> (LoopbackPeer, challenge: String) {
    let port = scenario.port
    let peer = try LoopbackPeer.connect(port: port)
    #expect(await peer.clientHandshake(port: port))
    let auth = await peer.readFrame(as: .client)
    guard case .auth(let challenge)? = auth.flatMap({ RelayMessage.parse($0.payload) }) else {
      Issue.record("no AUTH challenge")
      return (peer, "")
    }
    return (peer, challenge)
  }

  /// A raw connection that has sent a WebSocket upgrade request for `version` and read nothing.
  static func rawUpgrade(_ scenario: WebSocketScenario, version: Int) throws -> LoopbackPeer {
    let peer = try LoopbackPeer.connect(port: scenario.port)
    peer.send(
      Array(
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Version: \(version)\r\nSec-WebSocket-Key: \(WebSocketHandshake.makeKey())\r\n\r\n")
          .utf8))
    return peer
  }

  static func send(_ text: String, to peer: LoopbackPeer) {
    for frame in WebSocketFrameEncoder.textMessage(Array(text.utf8), role: .client) { peer.send(frame) }
  }

  @Test func sendsAFreshChallengeOfSixtyFourHex() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (_, first) = try await Self.rawClient(scenario)
      let (_, second) = try await Self.rawClient(scenario)
      #expect(Hex.isLowercaseHex(first, length: 64))
      #expect(first != second)
    }
  }

  @Test(arguments: [
    ("wrong challenge", "nope", "relay", "invalid: challenge does not match"),
    ("wrong relay", nil, "ws://127.0.0.1:1", "invalid: relay tag does not match"),
  ])
  func refusesABadAuthEvent(name: String, challenge: String?, relay: String, message: String) async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (peer, real) = try await Self.rawClient(scenario)
      let key = SecretKey.generate()
      let event = try UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: WebSocketScenario.now, kind: 22242,
        tags: [["relay", relay == "relay" ? scenario.url : relay], ["challenge", challenge ?? real]],
        content: ""
      ).signed(with: key)
      Self.send(JSONWriter.string(.array([.string("AUTH"), event.jsonValue])), to: peer)
      let answer = await peer.readFrame(as: .client).flatMap { RelayMessage.parse($0.payload) }
      #expect(answer == .ok(eventID: event.id, accepted: false, message: message), "\(name)")
    }
  }

  @Test func acceptsASignedChallenge() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (peer, challenge) = try await Self.rawClient(scenario)
      let key = SecretKey.generate()
      let event = try UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: WebSocketScenario.now, kind: 22242,
        tags: [["relay", scenario.url], ["challenge", challenge]], content: ""
      ).signed(with: key)
      Self.send(JSONWriter.string(.array([.string("AUTH"), event.jsonValue])), to: peer)
      let answer = await peer.readFrame(as: .client).flatMap { RelayMessage.parse($0.payload) }
      #expect(answer == .ok(eventID: event.id, accepted: true, message: ""))
    }
  }

  @Test(arguments: [
    ("unmasked client frame", [UInt8(0x81), 0x02, 0x5B, 0x5D], UInt16(1002)),
    (
      "reserved bits",
      WebSocketFrameEncoder.frame(opcode: .text, payload: [0x5B], mask: (1, 2, 3, 4)).enumerated().map {
        $0.offset == 0 ? $0.element | 0x40 : $0.element
      }, 1002
    ),
    ("client frame over 1 MiB", [0x81, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 1, 1, 2, 3, 4], 1009),
  ])
  func closesOnAClientFrameViolation(name: String, bytes: [UInt8], closeCode: UInt16) async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (peer, _) = try await Self.rawClient(scenario)
      peer.send(bytes)
      let close = await peer.readFrame(.close, as: .client)
      #expect(close.map { UInt16($0.payload[0]) << 8 | UInt16($0.payload[1]) } == closeCode, "\(name)")
      #expect(await peer.waitForClose())
    }
  }

  @Test func answersAnUnknownMessageWithANotice() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (peer, _) = try await Self.rawClient(scenario)
      Self.send("[\"HELLO\"]", to: peer)
      let answer = await peer.readFrame(as: .client).flatMap { RelayMessage.parse($0.payload) }
      #expect(answer == .notice("invalid: unknown message type HELLO"))
    }
  }

  @Test func refusesAnUpgradeWithAnotherVersion() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let peer = try Self.rawUpgrade(scenario, version: 8)
      let head = await peer.readHead()
      #expect(head?.hasPrefix("HTTP/1.1 426") == true)
      #expect(head?.contains("Sec-WebSocket-Version: 13") == true)
    }
  }

  @Test func refusesA21stOpenSubscriptionAndABadFilter() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (peer, _) = try await Self.rawClient(scenario)
      for index in 0..<20 {
        Self.send("[\"REQ\",\"s\(index)\",{\"kinds\":[1]}]", to: peer)
        #expect(await peer.readFrame(as: .client)?.payload == Array("[\"EOSE\",\"s\(index)\"]".utf8))
      }
      Self.send("[\"REQ\",\"s20\",{\"kinds\":[1]}]", to: peer)
      let refused = await peer.readFrame(as: .client).flatMap { RelayMessage.parse($0.payload) }
      #expect(
        refused == .closed(subscription: "s20", message: "restricted: too many open subscriptions (max 20)"))
      Self.send("[\"CLOSE\",\"s0\"]", to: peer)
      Self.send("[\"REQ\",\"bad\",{\"kinds\":[\"x\"]}]", to: peer)
      let bad = await peer.readFrame(as: .client).flatMap { RelayMessage.parse($0.payload) }
      guard case .closed("bad", let message)? = bad else {
        Issue.record("no CLOSED for a bad filter: \(String(describing: bad))")
        return
      }
      #expect(message.hasPrefix("invalid: filter [0] kinds[0]: "))
      #expect(await Polling.eventually(within: .seconds(10)) { scenario.server.openSubscriptions == 19 })
    }
  }

  @Test(arguments: [
    (
      "GET /query HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      404
    ),
    (
      "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n",
      400
    ),
    (
      "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      400
    ),
    (
      "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      400
    ),
    (
      "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      101
    ),
  ])
  func checksTheUpgradeRequest(request: String, status: Int) async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let peer = try LoopbackPeer.connect(port: scenario.port)
      peer.send(Array(request.utf8))
      let head = await peer.readHead()
      #expect(head?.hasPrefix("HTTP/1.1 \(status) ") == true, "\(String(describing: head))")
      if status == 101 {
        #expect(head?.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") == true)
      }
    }
  }

  @Test func closesAFrameNotWholeWithinTenSecondsWith1008() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (peer, _) = try await Self.rawClient(scenario)
      peer.send([0x81, 0x85, 1, 2])
      let close = await peer.readFrame(as: .client, within: .seconds(15))
      #expect(close?.opcode == .close)
      #expect(close?.payload.prefix(2) == [0x03, 0xF0])
    }
  }

  @Test func refusesA65thUpgradedConnectionWith503() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      var open: [LoopbackPeer] = []
      for _ in 0..<64 { open.append(try await Self.rawClient(scenario).0) }
      let extra = try Self.rawUpgrade(scenario, version: 13)
      let head = await extra.readHead()
      #expect(head?.hasPrefix("HTTP/1.1 503 ") == true)
      #expect(open.count == 64)
    }
  }

  @Test func sendsEventsAddedByTheTestToOpenSubscriptions() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let (peer, _) = try await Self.rawClient(scenario)
      Self.send(#"["REQ","live",{"kinds":[7]}]"#, to: peer)
      #expect(await peer.readFrame(as: .client)?.payload == Array(#"["EOSE","live"]"#.utf8))
      let reaction = try UnsignedEvent(
        pubkey: scenario.stranger.publicKeyHex, createdAt: WebSocketScenario.now, kind: 7, tags: [],
        content: "+"
      ).signed(with: scenario.stranger)
      try scenario.server.add([scenario.messages[0], reaction])
      let pushed = await peer.readFrame(as: .client)
      #expect(
        pushed?.payload == Array(#"["EVENT","live","#.utf8) + reaction.jsonBytes() + [UInt8(ascii: "]")])
    }
  }
}
