import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct FaultTests {
  /// Sends a signed `/query` over a raw connection and reads until the server closes.
  static func rawQuery(_ origin: String, _ filters: String, key: SecretKey) async throws -> (
    bytes: [UInt8], closed: Bool
  ) {
    let body = Array(filters.utf8)
    let auth = try NIP98.authorizationHeader(
      url: origin + "/query", method: "POST", body: body, key: key, now: Scenario.now)
    let connection = try RawConnection(port: port(of: origin))
    connection.send(
      "POST /query HTTP/1.1\r\nHost: x\r\nAuthorization: \(auth)\r\nContent-Length: \(body.count)\r\n"
        + "Connection: close\r\n\r\n" + filters)
    return await connection.readUntilClose()
  }

  @Test func delaysTheAnswerByTheConfiguredTime() async throws {
    let scenario = Scenario()
    try await Scenario.serving(
      RelayFixtureData(events: [try scenario.message("x", offset: 1)])
    ) { server, origin in
      server.setFaults([RelayFault(path: "/query", kind: 9, action: .delay(milliseconds: 400))])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let started = ContinuousClock.now
      let response = try await client.query(
        origin, #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      let elapsed = ContinuousClock.now - started
      #expect(response.status == 200)
      #expect(try eventIDs(response.body).count == 1)
      #expect(elapsed >= .milliseconds(400))
      #expect(server.requests().first?.fault == "delay")
    }
  }

  @Test func answersWithTheConfiguredStatus() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      server.setFaults([RelayFault(path: "/query", action: .status(503))])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(
        origin, #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      #expect(response.status == 503)
      #expect(server.requests().first?.status == 503)
    }
  }

  @Test func streamsABodyLargerThanAnyCap() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      let size = 3 * 1024 * 1024
      server.setFaults([
        RelayFault(path: "/query", kind: 39002, action: .oversizedBody(bytes: size, declaresLength: true))
      ])
      let received = try await Self.rawQuery(origin, #"[{"kinds":[39002]}]"#, key: scenario.account)
      let response = try #require(RawResponse(received.bytes))
      #expect(response.status == 200)
      #expect(response.headers["content-length"] == String(size))
      #expect(response.body.count == size)
      #expect(response.body.allSatisfy { $0 == UInt8(ascii: "[") })
      #expect(received.closed)
    }
  }

  @Test func streamsAnUndeclaredOversizedBodyUntilClose() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      server.setFaults([
        RelayFault(path: "/query", action: .oversizedBody(bytes: 2_500_000, declaresLength: false))
      ])
      let received = try await Self.rawQuery(origin, "[]", key: scenario.account)
      let response = try #require(RawResponse(received.bytes))
      #expect(response.headers["content-length"] == nil)
      #expect(response.body.count == 2_500_000)
      #expect(received.closed)
    }
  }

  @Test func closesHalfWayThroughTheBody() async throws {
    let scenario = Scenario()
    let events = try (1...4).map { try scenario.message("message \($0)", offset: Int64($0)) }
    try await Scenario.serving(RelayFixtureData(events: events)) { server, origin in
      server.setFaults([RelayFault(path: "/query", action: .truncatedBody)])
      let received = try await Self.rawQuery(origin, #"[{"kinds":[9]}]"#, key: scenario.account)
      let response = try #require(RawResponse(received.bytes))
      let declared = try #require(response.headers["content-length"].flatMap { Int($0) })
      #expect(declared > 0)
      #expect(response.body.count == declared / 2)
      #expect(received.closed)
    }
  }

  @Test func answersBytesThatAreNotJSON() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      server.setFaults([RelayFault(path: "/query", action: .notJSON)])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(origin, "[]", key: scenario.account, now: Scenario.now)
      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(throws: JSONError.self) { try JSONReader().read(response.body) }
    }
  }

  @Test func closesTheConnectionWithoutAnswering() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      server.setFaults([RelayFault(path: "/query", action: .closeConnection)])
      let received = try await Self.rawQuery(origin, "[]", key: scenario.account)
      #expect(received.bytes.isEmpty)
      #expect(received.closed)
    }
  }

  @Test func answersAGivenBodyVerbatim() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      let body = Array(#"[{"id":"broken"}]"#.utf8)
      server.setFaults([
        RelayFault(path: "/query", action: .body(status: 200, contentType: "application/json", bytes: body))
      ])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(origin, "[]", key: scenario.account, now: Scenario.now)
      #expect(response.body == body)
    }
  }

  @Test func appliesAKindFaultOnlyToQueriesAskingForThatKind() async throws {
    let scenario = Scenario()
    let profile = try scenario.profile()
    let message = try scenario.message("x", offset: 1)
    try await Scenario.serving(RelayFixtureData(events: [profile, message])) { server, origin in
      server.setFaults([RelayFault(path: "/query", kind: 0, action: .status(500))])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let messages = try await client.query(
        origin, #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      let profiles = try await client.query(
        origin, #"[{"kinds":[9]},{"kinds":[0],"limit":1}]"#, key: scenario.account, now: Scenario.now)
      #expect(messages.status == 200)
      #expect(try eventIDs(messages.body) == [message.id])
      #expect(profiles.status == 500)
    }
  }

  @Test func appliesAFaultOnlyAsManyTimesAsAsked() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      server.setFaults([RelayFault(path: "/query", action: .status(503), times: 2)])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      var statuses: [Int] = []
      for _ in 0..<3 {
        statuses.append(try await client.query(origin, "[]", key: scenario.account, now: Scenario.now).status)
      }
      #expect(statuses == [503, 503, 200])
    }
  }

  @Test func appliesAMediaPrefixFaultToEveryFile() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData(media: ["a.png": [1], "b.png": [2]])) { server, origin in
      server.setFaults([RelayFault(path: "/media/*", action: .status(502))])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let first = try await client.media(origin, "a.png", key: scenario.account, now: Scenario.now)
      let second = try await client.media(origin, "b.png", key: scenario.account, now: Scenario.now)
      #expect(first.status == 502)
      #expect(second.status == 502)
    }
  }
}
