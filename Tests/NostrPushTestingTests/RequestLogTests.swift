import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct RequestLogTests {
  /// Sends `GET /n<i>` for each index and returns the statuses.
  private static func send(_ indices: Range<Int>, to origin: String) async throws -> [Int] {
    let client = HTTPTestClient()
    defer { client.invalidate() }
    var statuses: [Int] = []
    for index in indices {
      statuses.append(try await client.send("GET", origin + "/n\(index)").status)
    }
    return statuses
  }

  @Test func dropsTheOldestTenthWhenFull() async throws {
    let configuration = RelayFixtureConfiguration(now: Scenario.now, requestLogCapacity: 20)
    try await Scenario.serving(RelayFixtureData(), configuration: configuration) { server, origin in
      let statuses = try await Self.send(0..<25, to: origin)
      let paths = server.requests().map(\.path)
      #expect(statuses == Array(repeating: 404, count: 25))
      // Full at 20: the 21st request drops the oldest 2 (19 kept), the 22nd fills it, the 23rd
      // drops 2 more, the 24th fills it, the 25th drops 2: the newest 19 remain, in order.
      #expect(paths == (6..<25).map { "/n\($0)" })
    }
  }

  @Test func keepsNoLogWhenCapacityIsZero() async throws {
    let configuration = RelayFixtureConfiguration(now: Scenario.now, requestLogCapacity: 0)
    try await Scenario.serving(RelayFixtureData(), configuration: configuration) { server, origin in
      let statuses = try await Self.send(0..<3, to: origin)
      let records = server.requests()
      #expect(statuses == [404, 404, 404])
      #expect(records.isEmpty)
    }
  }
}
