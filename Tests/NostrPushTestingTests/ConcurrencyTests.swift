import Foundation
import NostrEvent
import NostrPushTesting
import Testing

/// The tests that need the machine to themselves, run one after the other: a CPU-bound load and
/// a deadline measurement would otherwise disturb each other.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ConcurrencyTests {
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

  @Test func cutsOffATricklingClientWithoutStallingOthers() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: Array("{}".utf8))) {
      $0.requestTimeout = .seconds(1)
    }
    let slow = try RawConnection(port: port(of: origin))
    let request = Array("GET / HTTP/1.1\r\nHost: x\r\nAccept: application/nostr+json\r\n\r\n".utf8)
    let started = ContinuousClock.now
    slow.send([request[0]])
    let client = HTTPTestClient()
    defer { client.invalidate() }
    let other = try await client.send("GET", origin + "/", headers: ["Accept": "application/nostr+json"])
    let slowStillWaiting = !slow.isReadable()
    var sent = 1
    while sent < request.count, !slow.isReadable() {
      // Not a wait for anything: one byte every 250 ms is the trickling client under test.
      try await Task.sleep(for: .milliseconds(250))
      guard slow.send([request[sent]]) else { break }
      sent += 1
    }
    let received = await slow.readUntilClose(idleMilliseconds: 3000)
    let cutOffAfter = ContinuousClock.now - started
    await server.stop()
    #expect(other.status == 200)
    #expect(slowStillWaiting)
    #expect(sent < request.count)
    #expect(RawResponse(received.bytes)?.status == 408)
    #expect(received.closed)
    #expect(cutOffAfter >= .seconds(1))
    #expect(cutOffAfter < .seconds(3))
  }
}
