import Foundation
import NostrEvent
import RelayFixture
import Testing

@Suite struct LoadTests {
  static let clients = 200
  static let queriesPerClient = 20

  @Test func serves200ConcurrentClientsWith20QueriesEach() async throws {
    let scenario = Scenario()
    let events = try (1...10).map { try scenario.message("message \($0)", offset: Int64($0)) }
    let before = residentBytes()
    let (server, origin) = try await Scenario.start(RelayFixtureData(events: events))
    let client = HTTPTestClient(connections: Self.clients)
    defer { client.invalidate() }
    let keys = (0..<Self.clients).map { _ in SecretKey.generate() }
    let started = ContinuousClock.now
    let answered = try await withThrowingTaskGroup(of: Int.self) { group in
      for key in keys {
        group.addTask {
          var good = 0
          for _ in 0..<Self.queriesPerClient {
            let response = try await client.query(
              origin, #"[{"kinds":[9],"limit":5}]"#, key: key, now: Scenario.now)
            if response.status == 200, try eventIDs(response.body) == events.prefix(5).map(\.id) { good += 1 }
          }
          return good
        }
      }
      return try await group.reduce(0, +)
    }
    let elapsed = ContinuousClock.now - started
    let during = residentBytes()
    await server.stop()
    let after = residentBytes()
    #expect(answered == Self.clients * Self.queriesPerClient)
    #expect(server.requestCount(path: "/query") == Self.clients * Self.queriesPerClient)
    let mib = { (bytes: Int?) in bytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? "n/a" }
    print(
      "RelayFixture load: \(answered) queries from \(Self.clients) clients in \(elapsed); "
        + "test process RSS before \(mib(before)), after load \(mib(during)), after stop \(mib(after))")
  }
}
