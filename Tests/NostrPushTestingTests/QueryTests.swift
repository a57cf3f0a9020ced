import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct QueryTests {
  @Test func answersMatchingEventsNewestFirst() async throws {
    let scenario = Scenario()
    let older = try scenario.message("older", offset: 300)
    let newer = try scenario.message("newer", offset: 100)
    let profile = try scenario.profile()
    try await Scenario.serving(RelayFixtureData(events: [older, profile, newer])) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(
        origin, ##"[{"kinds":[9],"#p":["\##(scenario.account.publicKeyHex)"]}]"##, key: scenario.account,
        now: Scenario.now)
      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(try eventIDs(response.body) == [newer.id, older.id])
    }
  }

  @Test func breaksTiesOnCreatedAtByTheLowerID() async throws {
    let scenario = Scenario()
    let events = try (0..<4).map { try scenario.message("same second \($0)", offset: 50) }
    try await Scenario.serving(RelayFixtureData(events: events)) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(
        origin, #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      #expect(try eventIDs(response.body) == events.map(\.id).sorted())
    }
  }

  @Test func appliesTheLimitPerFilterAndUnitesWithoutDuplicates() async throws {
    let scenario = Scenario()
    let messages = try (1...5).map { try scenario.message("message \($0)", offset: Int64($0) * 10) }
    let profile = try scenario.profile(offset: 1000)
    try await Scenario.serving(RelayFixtureData(events: messages + [profile])) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let filters = #"[{"kinds":[9],"limit":2},{"kinds":[9,0],"limit":3},{"kinds":[0],"limit":1}]"#
      let response = try await client.query(origin, filters, key: scenario.account, now: Scenario.now)
      #expect(try eventIDs(response.body) == [messages[0].id, messages[1].id, messages[2].id, profile.id])
    }
  }

  @Test func defaultsTheLimitTo100AndCapsItAt1000() async throws {
    let scenario = Scenario()
    let template = try scenario.message("many", offset: 0)
    var data = RelayFixtureData()
    for index in 0..<1100 {
      var object = template.jsonValue.objectValue!
      object["id"] = .string(String(format: "%064x", index))
      data.add(try Event(jsonValue: .object(object)))
    }
    try await Scenario.serving(data) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let unlimited = try await client.query(
        origin, #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      let huge = try await client.query(
        origin, #"[{"kinds":[9],"limit":5000}]"#, key: scenario.account, now: Scenario.now)
      #expect(try eventIDs(unlimited.body).count == 100)
      #expect(try eventIDs(huge.body).count == 1000)
    }
  }

  @Test func servesEventJSONByteForByteAsLoaded() async throws {
    let scenario = Scenario()
    let event = try scenario.message("spacing kept", offset: 5)
    let spaced = Array(JSONWriter.string(event.jsonValue).replacingOccurrences(of: ",", with: ", ").utf8)
    var data = RelayFixtureData()
    try data.add(eventJSON: spaced)
    try await Scenario.serving(data) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(
        origin, #"[{"ids":["\#(event.id)"]}]"#, key: scenario.account, now: Scenario.now)
      #expect(response.body == [UInt8(ascii: "[")] + spaced + [UInt8(ascii: "]")])
    }
  }

  @Test func answersAnEmptyArrayWhenNothingMatches() async throws {
    let scenario = Scenario()
    try await Scenario.serving(
      RelayFixtureData(events: [try scenario.message("x", offset: 1)])
    ) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(
        origin, #"[{"kinds":[45001]}]"#, key: scenario.account, now: Scenario.now)
      #expect(response.status == 200)
      #expect(response.body == Array("[]".utf8))
    }
  }

  @Test(arguments: [#"{"kinds":[9]}"#, #"[{"kinds":"nine"}]"#, "not json", #"[1]"#])
  func refusesABodyThatIsNotAFilterArray(body: String) async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(origin, body, key: scenario.account, now: Scenario.now)
      #expect(response.status == 400)
      #expect(
        try JSONReader().read(response.body).objectValue?["error"]?.stringValue?.hasPrefix("invalid") == true)
    }
  }

  @Test func refusesGETOnQuery() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send("GET", origin + "/query")
      #expect(response.status == 405)
    }
  }

  @Test func logsEachQueryWithItsKindsAndSigner() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      _ = try await client.query(
        origin, #"[{"kinds":[0],"limit":1},{"kinds":[39000]}]"#, key: scenario.account, now: Scenario.now)
      _ = try await client.query(origin, #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      #expect(server.requestCount(path: "/query") == 2)
      #expect(server.requestCount(path: "/query", kind: 0) == 1)
      #expect(server.requestCount(path: "/query", kind: 39002) == 0)
      let first = try #require(server.requests().first)
      #expect(first.kinds == [0, 39000])
      #expect(first.filters.first?.limit == 1)
      #expect(first.authorizedPubkey == scenario.account.publicKeyHex)
      #expect(first.status == 200)
    }
  }

  /// `Docs/TestingWithRelayFixture.md`: `add(_:)` throws for kind 30350, since leases enter only through ingest;
  /// the events beside the lease are not added either.
  @Test func refusesToAddALeaseAndAddsNothingOfItsBatch() async throws {
    let scenario = Scenario()
    try await withRelay(configuration: RelayFixtureConfiguration(now: Scenario.now)) { server in
      let message = try scenario.message("beside the lease", offset: 1)
      let lease = try scenario.message("", offset: 2, key: scenario.account, kind: 30350)
      let error = try #require(throws: RelayFixtureError.self) { try server.add([message, lease]) }
      #expect(error.code == .invalidData)
      #expect(error.field == "events[1]")
      #expect(error.message == "leases arrive only through ingest")
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(
        try #require(server.origin), #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      #expect(response.status == 200)
      #expect(try eventIDs(response.body).isEmpty)
      try server.add([message])
      let after = try await client.query(
        try #require(server.origin), #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      #expect(try eventIDs(after.body) == [message.id])
    }
  }

  @Test func servesEventsAddedWhileRunning() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      let late = try scenario.message("late", offset: 1)
      try server.add([late])
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.query(
        origin, #"[{"kinds":[9]}]"#, key: scenario.account, now: Scenario.now)
      #expect(try eventIDs(response.body) == [late.id])
    }
  }
}
