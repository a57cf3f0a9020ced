import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import NostrWebSocket
import Testing

/// The fixture's gift wrap rules: a wrap
/// backdated up to two days is accepted, and a wrap is served, over REQ, `/query` and live,
/// only to the authenticated pubkey its `p` tag names. Over real loopback sockets.
@Suite(.timeLimit(.minutes(2))) struct GiftWrapVisibilityTests {
  let scenario = Scenario()
  let oneTime = SecretKey.generate()

  /// A kind 1059 event for `scenario.account`, `backdate` seconds before the fixture's clock
  /// (only the routing matters here: its content is opaque to the relay).
  func wrap(backdate: Int64 = 169_200, to recipient: String? = nil, key: SecretKey? = nil) throws -> Event {
    let key = key ?? oneTime
    return try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: Scenario.now - backdate, kind: 1059,
      tags: [["p", recipient ?? scenario.account.publicKeyHex]], content: "opaque-\(UUID().uuidString)"
    ).signed(with: key)
  }

  static func webSocket(_ origin: String) -> String { (try? RelayOrigin(origin))?.webSocketURL ?? "" }

  static func connect(_ origin: String, key: SecretKey?) async throws -> RelayConnection {
    try await RelayConnection.connect(
      to: webSocket(origin), key: key, clock: { Scenario.now }, deadline: .now + .seconds(10))
  }

  static func query(_ origin: String, _ filter: String, key: SecretKey?) async throws -> [Event] {
    let filters = [try Filter(jsonValue: try JSONReader().read(filter))]
    let connection = try await connect(origin, key: key)
    do {
      let events = try await connection.query(filters, deadline: .now + .seconds(10))
      await connection.close()
      return events
    } catch {
      await connection.close()
      throw error
    }
  }

  @Test(arguments: [0, 169_200, 172_800 + 900])
  func acceptsAWrapBackdatedUpToTwoDaysAndTheWindow(backdate: Int64) async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let connection = try await Self.connect(origin, key: oneTime)
      let answer = try await connection.publish(try wrap(backdate: backdate), deadline: .now + .seconds(10))
      await connection.close()
      #expect(answer.accepted, "\(answer.message)")
    }
  }

  @Test func refusesAWrapBackdatedPastTheWindowAndAnotherKindBackdatedAtAll() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let connection = try await Self.connect(origin, key: oneTime)
      let tooOld = try await connection.publish(
        try wrap(backdate: 172_800 + 901), deadline: .now + .seconds(10))
      #expect(!tooOld.accepted)
      #expect(tooOld.message == "invalid: event timestamp too far from server time")
      let future = try await connection.publish(try wrap(backdate: -901), deadline: .now + .seconds(10))
      #expect(future.message == "invalid: event timestamp too far from server time")
      let note = try scenario.message("backdated", offset: 169_200)
      let refused = try await connection.publish(note, deadline: .now + .seconds(10))
      #expect(refused.message == "invalid: event timestamp too far from server time")
      await connection.close()
    }
  }

  @Test func servesAWrapOverREQOnlyToItsRecipient() async throws {
    let stored = try wrap()
    let other = try wrap(to: scenario.sender.publicKeyHex, key: SecretKey.generate())
    let message = try scenario.message("in the channel", offset: 10)
    try await Scenario.serving(RelayFixtureData(events: [stored, other, message])) { _, origin in
      let filter = #"{"kinds":[1059]}"#
      let forRecipient = try await Self.query(origin, filter, key: scenario.account)
      #expect(forRecipient.map(\.id) == [stored.id])
      let forOtherRecipient = try await Self.query(origin, filter, key: scenario.sender)
      #expect(forOtherRecipient.map(\.id) == [other.id])
      let forAuthor = try await Self.query(origin, filter, key: oneTime)
      #expect(forAuthor.isEmpty)
      let mixed = #"{"kinds":[9,1059]}"#
      let anonymousMixed = try await Self.query(origin, mixed, key: nil)
      #expect(anonymousMixed.map(\.id) == [message.id])
      let anonymous = await #expect(throws: RelayConnectionError.self) {
        try await Self.query(origin, filter, key: nil)
      }
      #expect(anonymous?.message == "auth-required: not authenticated")
    }
  }

  @Test func servesAWrapOverQueryOnlyToItsRecipient() async throws {
    let stored = try wrap()
    try await Scenario.serving(RelayFixtureData(events: [stored])) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let filters = ##"[{"kinds":[1059],"#p":["\##(scenario.account.publicKeyHex)"]}]"##
      let mine = try await client.query(origin, filters, key: scenario.account, now: Scenario.now)
      #expect(mine.status == 200)
      #expect(try eventIDs(mine.body) == [stored.id])
      let theirs = try await client.query(origin, filters, key: scenario.sender, now: Scenario.now)
      #expect(theirs.status == 200)
      #expect(try eventIDs(theirs.body).isEmpty)
      let anyKind = try await client.query(origin, "[{}]", key: scenario.sender, now: Scenario.now)
      #expect(try eventIDs(anyKind.body).isEmpty)
      let anonymous = try await client.send(
        "POST", origin + "/query", headers: ["Content-Type": "application/json"], body: Array(filters.utf8))
      #expect(anonymous.status == 401 || anonymous.status == 403)
    }
  }

  @Test func sendsALiveWrapOnlyToTheRecipientsOpenSubscription() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let url = Self.webSocket(origin)
      let recipient = try await LiveReader.open(url, key: scenario.account)
      let stranger = try await LiveReader.open(url, key: scenario.sender)
      for reader in [recipient, stranger] {
        try await reader.subscribe(#"[{"kinds":[1059]},{"kinds":[1]}]"#)
      }
      let publisher = try await Self.connect(origin, key: oneTime)
      let live = try wrap(backdate: 86_400)
      let wrapAnswer = try await publisher.publish(live, deadline: .now + .seconds(10))
      #expect(wrapAnswer.accepted)
      let marker = try UnsignedEvent(
        pubkey: oneTime.publicKeyHex, createdAt: Scenario.now, kind: 1, tags: [], content: "after the wrap"
      ).signed(with: oneTime)
      let markerAnswer = try await publisher.publish(marker, deadline: .now + .seconds(10))
      #expect(markerAnswer.accepted)
      await publisher.close()
      // Broadcasts go out in acceptance order: the marker arrives after the wrap, if the wrap is sent.
      let recipientSaw = try await recipient.nextEventIDs(until: marker.id)
      #expect(recipientSaw == [live.id, marker.id])
      let strangerSaw = try await stranger.nextEventIDs(until: marker.id)
      #expect(strangerSaw == [marker.id])
      await recipient.close()
      await stranger.close()
    }
  }
}

/// A raw NIP-01 reader that keeps one subscription open: it authenticates by hand and reads the
/// live `EVENT` messages in order.
struct LiveReader {
  let transport: any WebSocketTransport

  static func open(_ url: String, key: SecretKey) async throws -> LiveReader {
    let transport = try await openWebSocket(to: try WebSocketURL(url), deadline: .now + .seconds(10))
    let reader = LiveReader(transport: transport)
    let challenge = try #require(try await reader.next().arrayValue?.last?.stringValue)
    let auth = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: Scenario.now, kind: 22242,
      tags: [["relay", url], ["challenge", challenge]], content: ""
    ).signed(with: key)
    try await transport.send(JSONWriter.bytes(.array([.string("AUTH"), auth.jsonValue])))
    let ok = try await reader.next().arrayValue ?? []
    #expect(ok.first == .string("OK") && ok.count == 4 && ok[2] == .bool(true), "\(ok)")
    return reader
  }

  func next() async throws -> JSONValue {
    try JSONReader().read(try await transport.receive())
  }

  /// Sends `REQ` with `filters` (a JSON array text) and reads up to its `EOSE`.
  func subscribe(_ filters: String) async throws {
    var message = Array(#"["REQ","live","#.utf8)
    message += Array(filters.dropFirst().utf8)
    try await transport.send(message)
    while try await next().arrayValue?.first != .string("EOSE") {}
  }

  /// The ids of the `EVENT` messages that arrive, up to and including `last`.
  func nextEventIDs(until last: String) async throws -> [String] {
    var ids: [String] = []
    while ids.last != last {
      let message = try await next().arrayValue ?? []
      guard message.first == .string("EVENT"), let id = message.last?.objectValue?["id"]?.stringValue else {
        continue
      }
      ids.append(id)
    }
    return ids
  }

  func close() async { await transport.close() }
}
