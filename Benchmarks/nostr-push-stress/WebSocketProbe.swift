import Foundation
import NostrEvent
import NostrPushTesting
import NostrWebSocket

/// `nostr-push-stress --websocket BURSTS`: our WebSocket client and the fixture's endpoint under
/// load, in one process. Each burst opens 200 `RelayConnection`s (50 at a time, within the
/// fixture's 64 upgraded connections), runs 50 queries on each and closes it; descriptors,
/// threads, RSS and malloc's in-use heap are printed before and after every burst, so growth
/// from a leaked socket, thread or connection shows.
enum WebSocketProbe {
  static let connections = 200
  static let queriesPerConnection = 50
  static let concurrent = 50

  static func run(bursts: Int) async throws {
    let key = SecretKey.generate()
    let events = try (0..<20).map { index in
      try UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: 1_767_226_000 + Int64(index), kind: 9, tags: [],
        content: "m\(index)"
      ).signed(with: key)
    }
    let server = RelayFixtureServer(
      data: RelayFixtureData(events: events), configuration: RelayFixtureConfiguration(requestLogCapacity: 0))
    try await server.start()
    let url = server.relayOrigin?.webSocketURL ?? ""
    print("before: \(sample())")
    for burst in 1...bursts {
      let started = ContinuousClock.now
      let answered = try await withThrowingTaskGroup(of: Int.self) { group in
        var total = 0
        for index in 0..<connections {
          if index >= concurrent { total += try await group.next() ?? 0 }
          group.addTask {
            let connection = try await RelayConnection.connect(
              to: url, key: key, deadline: .now + .seconds(10))
            var kept = 0
            for _ in 0..<queriesPerConnection {
              kept += try await connection.query(
                [Filter(kinds: [9], limit: 5)], deadline: .now + .seconds(10)
              ).count
            }
            await connection.close()
            return kept == queriesPerConnection * 5 ? queriesPerConnection : 0
          }
        }
        for try await count in group { total += count }
        return total
      }
      try await Task.sleep(for: .seconds(1))
      print(
        "burst \(burst): \(answered)/\(connections * queriesPerConnection) queries answered in "
          + "\(started.duration(to: .now)); after: \(sample()); fixture connections \(server.activeConnections)"
      )
    }
    await server.stop()
  }

  private static func sample() -> String {
    let process = ProcessSample()
    return
      "fds \(process.descriptors), threads \(process.field("Threads") ?? "?"), "
      + "rss \(process.field("VmRSS") ?? "?"), heap \(process.heapKiB) KiB"
  }
}
