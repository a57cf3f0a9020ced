import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fixture's `POST /events` bridge over real loopback HTTP.
@Suite(.timeLimit(.minutes(1))) struct PostEventsTests {
  static func post(
    _ body: [UInt8], to scenario: WebSocketScenario, key: SecretKey?, url: String? = nil
  ) async throws -> (status: Int, json: JSONValue) {
    let target = scenario.server.origin! + "/events"
    var request = URLRequest(url: URL(string: target)!)
    request.httpMethod = "POST"
    request.httpBody = Data(body)
    if let key {
      request.setValue(
        try NIP98.authorizationHeader(
          url: url ?? target, method: "POST", body: body, key: key, now: WebSocketScenario.now),
        forHTTPHeaderField: "Authorization")
    }
    let session = URLSession(configuration: .ephemeral)
    defer { session.invalidateAndCancel() }
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONReader().read([UInt8](data)))
  }

  static func signed(
    _ key: SecretKey, kind: Int, createdAt: Int64 = WebSocketScenario.now, tags: [[String]] = []
  )
    throws -> Event
  {
    try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: createdAt, kind: kind, tags: tags, content: "x")
      .signed(with: key)
  }

  static func answer(_ accepted: Bool, _ id: String?, _ message: String) -> JSONValue {
    .object(
      JSONObject([
        "accepted": .bool(accepted), "id": id.map { .string($0) } ?? .null, "message": .string(message),
      ]))
  }

  @Test func storesAnEventAndAnswersDuplicates() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let event = try Self.signed(scenario.stranger, kind: 1)
      let first = try await Self.post(event.jsonBytes(), to: scenario, key: scenario.stranger)
      #expect(first.status == 200)
      #expect(first.json == Self.answer(true, event.id, ""))
      let second = try await Self.post(event.jsonBytes(), to: scenario, key: scenario.stranger)
      #expect(second.json == Self.answer(true, event.id, "duplicate: already have this event"))
      let connection = try await scenario.connect()
      #expect(try await connection.query([Filter(ids: [event.id])], deadline: .now + .seconds(10)).count == 1)
      await connection.close()
    }
  }

  @Test func refusesAMissingOrMisdirectedAuthorization() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let event = try Self.signed(scenario.stranger, kind: 1)
      let missing = try await Self.post(event.jsonBytes(), to: scenario, key: nil)
      #expect(missing.status == 401)
      #expect(missing.json.objectValue?["error"]?.stringValue?.hasPrefix("NIP-98: ") == true)
      let elsewhere = try await Self.post(
        event.jsonBytes(), to: scenario, key: scenario.stranger, url: scenario.server.origin! + "/query")
      #expect(elsewhere.status == 401)
    }
  }

  @Test func answersTheFirstFailingRule() async throws {
    try await withStarted(try await WebSocketScenario(authRequiredKinds: [4])) { scenario in
      let author = scenario.author
      var tampered = try Self.signed(author, kind: 1).jsonValue.objectValue!
      tampered["content"] = .string("changed")
      let tamperedID = tampered["id"]!.stringValue!
      let cases: [(body: [UInt8], id: String?, message: String)] = [
        (Array("not json".utf8), nil, "invalid: malformed event: event: not a JSON object"),
        (try Self.signed(author, kind: 22242).jsonBytes(), nil, "invalid: AUTH events go in an AUTH message"),
        (try Self.signed(author, kind: 30350).jsonBytes(), nil, "invalid: push not supported"),
        (
          try Self.signed(author, kind: 1, createdAt: WebSocketScenario.now - 901).jsonBytes(), nil,
          "invalid: event timestamp too far from server time"
        ),
      ]
      for (body, _, message) in cases {
        let answer = try await Self.post(body, to: scenario, key: author)
        #expect(answer.status == 400, "\(message)")
        #expect(answer.json.objectValue?["message"]?.stringValue == message)
        #expect(answer.json.objectValue?["accepted"] == .bool(false))
      }
      let forged = try await Self.post(JSONWriter.bytes(.object(tampered)), to: scenario, key: author)
      #expect(forged.json.objectValue?["id"]?.stringValue == tamperedID)
      #expect(
        forged.json.objectValue?["message"]?.stringValue?.hasPrefix("invalid: invalid event id: computed ")
          == true)
      let other = try await Self.post(
        try Self.signed(author, kind: 4).jsonBytes(), to: scenario, key: scenario.stranger)
      #expect(
        other.json.objectValue?["message"]
          == .string("invalid: event pubkey does not match authenticated identity"))
    }
  }

  @Test func refusesAStaleReplacementAndReplacesWithANewerOne() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let key = scenario.stranger
      let newer = try Self.signed(key, kind: 30000, createdAt: WebSocketScenario.now, tags: [["d", "a"]])
      let older = try Self.signed(
        key, kind: 30000, createdAt: WebSocketScenario.now - 10, tags: [["d", "a"]])
      let otherTag = try Self.signed(
        key, kind: 30000, createdAt: WebSocketScenario.now - 10, tags: [["d", "b"]])
      #expect(try await Self.post(newer.jsonBytes(), to: scenario, key: key).status == 200)
      let stale = try await Self.post(older.jsonBytes(), to: scenario, key: key)
      #expect(stale.json == Self.answer(false, older.id, "invalid: stale replacement"))
      #expect(try await Self.post(otherTag.jsonBytes(), to: scenario, key: key).status == 200)
      let newest = try Self.signed(
        key, kind: 30000, createdAt: WebSocketScenario.now + 5, tags: [["d", "a"]])
      #expect(try await Self.post(newest.jsonBytes(), to: scenario, key: key).status == 200)
      let connection = try await scenario.connect()
      let kept = try await connection.query([Filter(kinds: [30000])], deadline: .now + .seconds(10))
      #expect(Set(kept.map(\.id)) == [newest.id, otherTag.id])
      await connection.close()
    }
  }
}
