import Foundation
import NostrEvent
import NostrJSON
import NostrWebSocket
import Testing

/// NIP-42 flows a scripted relay drives step by step: `auth-required:` → authenticate → retry
/// once, a second refusal, a refused `AUTH`.
@Suite(.timeLimit(.minutes(1))) struct AuthRetryTests {
  static let now: Int64 = 1_767_226_600

  static func connected(key: SecretKey?) async throws -> (RelayConnection, LoopbackPeer, String) {
    let (listener, port) = try LoopbackPeer.listen()
    let url = "ws://127.0.0.1:\(port)"
    async let peer = LoopbackPeer.accept(listener)
    async let transport = PosixWebSocketTransport.connect(
      to: try WebSocketURL(url), deadline: .now + .seconds(10))
    let server = try await peer
    #expect(await server.acceptHandshake())
    let connection = RelayConnection(
      transport: try await transport, url: try WebSocketURL(url), key: key, clock: { Self.now })
    return (connection, server, url)
  }

  /// The next text message from the client, parsed.
  static func next(_ server: LoopbackPeer) async -> [JSONValue]? {
    guard let frame = await server.readFrame(.text, as: .server) else { return nil }
    return (try? JSONReader().read(frame.payload))?.arrayValue
  }

  static func send(_ value: JSONValue, _ server: LoopbackPeer) {
    server.send(WebSocketFrameEncoder.frame(opcode: .text, payload: JSONWriter.bytes(value)))
  }

  @Test func authenticatesThenRetriesWithAFreshSubscription() async throws {
    let key = SecretKey.generate()
    let (connection, server, url) = try await Self.connected(key: key)
    let query = Task { try await connection.query([Filter(kinds: [4])], deadline: .now + .seconds(20)) }
    let first = try #require(await Self.next(server))
    #expect(first.first == .string("REQ"))
    let firstSub = try #require(first[1].stringValue)
    #expect(Hex.isLowercaseHex(firstSub, length: 32))
    Self.send(.array([.string("CLOSED"), .string(firstSub), .string("auth-required: who are you")]), server)
    Self.send(.array([.string("AUTH"), .string("challenge-1")]), server)
    let auth = try #require(await Self.next(server))
    #expect(auth.first == .string("AUTH"))
    let event = try Event(jsonValue: auth[1])
    #expect(event.verify().isValid)
    #expect(event.kind == 22242)
    #expect(event.pubkey == key.publicKeyHex)
    #expect(event.createdAt == Self.now)
    #expect(event.content == "")
    #expect(event.tags == [["relay", url], ["challenge", "challenge-1"]])
    Self.send(.array([.string("OK"), .string(event.id), .bool(true), .string("")]), server)
    let retry = try #require(await Self.next(server))
    #expect(retry.first == .string("REQ"))
    let secondSub = try #require(retry[1].stringValue)
    #expect(secondSub != firstSub)
    Self.send(.array([.string("EOSE"), .string(secondSub)]), server)
    #expect(try await query.value.isEmpty)
    let close = try #require(await Self.next(server))
    #expect(close == [.string("CLOSE"), .string(secondSub)])
    #expect(await connection.authenticatedPubkey == key.publicKeyHex)
    await connection.close()
  }

  @Test func aSecondAuthRequiredIsFinal() async throws {
    let (connection, server, _) = try await Self.connected(key: SecretKey.generate())
    Self.send(.array([.string("AUTH"), .string("c")]), server)
    let auth = try #require(await Self.next(server))
    let authID = try Event(jsonValue: auth[1]).id
    Self.send(.array([.string("OK"), .string(authID), .bool(true), .string("")]), server)
    let query = Task { try await connection.query([Filter(kinds: [4])], deadline: .now + .seconds(20)) }
    for round in 0..<2 {
      let request = try #require(await Self.next(server), "round \(round)")
      Self.send(.array([.string("CLOSED"), request[1], .string("auth-required: still no")]), server)
    }
    let error = await #expect(throws: RelayConnectionError.self) { _ = try await query.value }
    #expect(error?.code == .authRequired)
    #expect(error?.message == "auth-required: still no")
    await connection.close()
  }

  @Test func aRefusedAuthFailsTheWaitingRequest() async throws {
    let (connection, server, _) = try await Self.connected(key: SecretKey.generate())
    let query = Task { try await connection.query([Filter(kinds: [4])], deadline: .now + .seconds(20)) }
    let request = try #require(await Self.next(server))
    Self.send(.array([.string("CLOSED"), request[1], .string("auth-required: please")]), server)
    Self.send(.array([.string("AUTH"), .string("c2")]), server)
    let auth = try #require(await Self.next(server))
    let authID = try Event(jsonValue: auth[1]).id
    Self.send(
      .array([.string("OK"), .string(authID), .bool(false), .string("invalid: challenge does not match")]),
      server)
    let error = await #expect(throws: RelayConnectionError.self) { _ = try await query.value }
    #expect(error?.code == .authFailed)
    #expect(error?.message == "invalid: challenge does not match")
    await connection.close()
  }

  @Test func retriesAPublishOnceAfterAuthenticating() async throws {
    let key = SecretKey.generate()
    let (connection, server, _) = try await Self.connected(key: key)
    let event = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: Self.now, kind: 1, tags: [], content: "x"
    )
    .signed(with: key)
    let publish = Task { try await connection.publish(event, deadline: .now + .seconds(20)) }
    let sent = try #require(await Self.next(server))
    #expect(sent.first == .string("EVENT"))
    Self.send(.array([.string("AUTH"), .string("c3")]), server)
    let auth = try #require(await Self.next(server))
    Self.send(
      .array([.string("OK"), .string(event.id), .bool(false), .string("auth-required: sign in")]), server)
    Self.send(.array([.string("OK"), .string(try Event(jsonValue: auth[1]).id), .bool(true)]), server)
    let resent = try #require(await Self.next(server))
    #expect(resent == sent)
    Self.send(.array([.string("OK"), .string(event.id), .bool(true)]), server)
    #expect(try await publish.value == PublishResult(id: event.id, accepted: true, message: ""))
    await connection.close()
  }

  @Test func countsNoticesAndIgnoresStrayMessages() async throws {
    let (connection, server, _) = try await Self.connected(key: nil)
    for index in 0..<20 { Self.send(.array([.string("NOTICE"), .string("n\(index)")]), server) }
    Self.send(.array([.string("EOSE"), .string("nobody")]), server)
    Self.send(.string("not an array"), server)
    let query = Task { try await connection.query([Filter(kinds: [4])], deadline: .now + .seconds(20)) }
    let request = try #require(await Self.next(server))
    Self.send(.array([.string("EOSE"), request[1]]), server)
    _ = try await query.value
    let counters = await connection.counters
    #expect(counters.notices == 20)
    #expect(counters.ignored == 2)
    #expect(await connection.notices == (4..<20).map { "n\($0)" })
    await connection.close()
  }
}
