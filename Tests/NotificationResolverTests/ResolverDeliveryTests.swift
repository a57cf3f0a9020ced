import NostrEvent
import NostrPushTesting
import NotificationResolver
import Testing

@Suite(.timeLimit(.minutes(2))) struct ResolverDeliveryTests {
  @Test func presentsAMessageThatArrivesAfterAnEarlierWake() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let older = scenario.message("older", createdAt: RelayScenario.now - 100)
    let newer = scenario.message("newer", createdAt: RelayScenario.now - 50)
    let server = try await scenario.startRelay([older])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let first = await scenario.resolve(configuration, cache: try folder.cache())
      try server.add([newer])
      let second = await scenario.resolve(configuration, cache: try folder.cache())
      let third = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(first.outcome.notification?.target.eventID == older.id)
      #expect(second.outcome.notification?.target.eventID == newer.id)
      #expect(second.outcome.notification?.moreCount == 0)
      #expect(third.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test func breaksACreatedAtTieTowardsTheLowerID() async throws {
    let scenario = RelayScenario()
    let events = (0..<4).map { scenario.message("tie \($0)", createdAt: RelayScenario.now - 10) }
    let server = try await scenario.startRelay(events)
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: nil)
      #expect(resolution.outcome.notification?.target.eventID == events.map(\.id).min())
    }
  }

  @Test func neverPresentsOneEventTwiceFromConcurrentWakes() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let events = (0..<2).map { scenario.message("m\($0)", createdAt: RelayScenario.now - 10 - Int64($0)) }
    let server = try await scenario.startRelay(events + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      for _ in 0..<3 {
        let caches = try (0..<3).map { _ in try folder.cache() }
        async let a = scenario.resolve(configuration, cache: caches[0])
        async let b = scenario.resolve(configuration, cache: caches[1])
        async let c = scenario.resolve(configuration, cache: caches[2])
        let outcomes = await [a, b, c].map(\.outcome)
        // One wake covers both messages; the others have nothing new.
        let presented = outcomes.compactMap(\.notification)
        #expect(presented.count <= 1)
        #expect(presented.map { $0.moreCount + 1 }.reduce(0, +) == (presented.isEmpty ? 0 : 2))
        #expect(
          outcomes.filter { $0 == .nothingNew(.alreadyDelivered, suppress: false) }.count == 3
            - presented.count)
      }
    }
  }

  @Test func sendsTheFiltersWithADefaultLimit() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([scenario.message("hi")])
    try await server.serving {
      let configuration = try scenario.configuration(
        server, relayPubkey: true,
        filters: [
          Filter(kinds: [9], tags: ["p": [scenario.account.publicKeyHex]]),
          Filter(kinds: [40002], tags: ["h": [RelayScenario.channel]], limit: 3),
        ])
      _ = await scenario.resolve(configuration, cache: nil)
      let query = try #require(server.requests().first { $0.path == "/query" })
      #expect(query.filters.map(\.limit) == [10, 3])
      #expect(query.authorizedPubkey == scenario.account.publicKeyHex)
    }
  }
}
