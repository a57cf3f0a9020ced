import EnrichmentCache
import NostrEvent
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import Testing

/// The two-phase claim, coverage and the presentation window (`Docs/NotificationServiceExtension.md`, §2)
/// against the fixture relay and a real cache file.
@Suite(.timeLimit(.minutes(2))) struct ResolverClaimTests {
  @Test func presentsTheNewestOfThreeWithMoreCountTwoThenNothingNew() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let messages = (0..<3).map { scenario.message("m\($0)", createdAt: RelayScenario.now - 100 + Int64($0)) }
    let server = try await scenario.startRelay(messages + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let first = await scenario.resolve(configuration, cache: try folder.cache())
      let notification = try #require(first.outcome.notification)
      #expect(notification.target.eventID == messages[2].id)
      #expect(notification.moreCount == 2)
      #expect(notification.body == "m2\nand 2 more")
      #expect(notification.account == scenario.account.publicKeyHex)
      let second = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(second.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test func twoOverlappingWakesPresentEachOfThreeMessagesOnce() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let messages = (0..<3).map { scenario.message("m\($0)", createdAt: RelayScenario.now - 100 + Int64($0)) }
    let server = try await scenario.startRelay(messages + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let caches = try (0..<2).map { _ in try folder.cache() }
      async let a = scenario.resolve(configuration, cache: caches[0])
      async let b = scenario.resolve(configuration, cache: caches[1])
      let notifications = await [a, b].compactMap(\.outcome.notification)
      // Together they cover every message once: the covered counts add up to three, and the
      // cache holds three presented claims.
      #expect(notifications.map { $0.moreCount + 1 }.reduce(0, +) == 3)
      #expect(Set(notifications.map(\.target.eventID)).count == notifications.count)
      let stats = try caches[0].stats()
      #expect(stats.deliveries == 3)
      let third = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(third.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test func takesAClaimThatExpiredUnpresentedAgain() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let message = scenario.message("hello")
    let server = try await scenario.startRelay([message] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      // The extension claims, then dies before marking the plan presented.
      let abandoned = NotificationResolver(
        configuration: configuration, cache: try folder.cache(), clock: .fixed(RelayScenario.now)
      ).start()
      #expect(await abandoned.plan().outcome.notification?.target.eventID == message.id)
      // While the claim is live, another wake has nothing new.
      let during = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(during.outcome == .nothingNew(.alreadyDelivered, suppress: false))
      // Once it expired unpresented, the next wake presents it; the one after has nothing new.
      let later = RelayScenario.now + EnrichmentCache.claimLifetime
      server.setNow(later)
      let retaken = await scenario.resolve(configuration, cache: try folder.cache(now: later), now: later)
      #expect(retaken.outcome.notification?.target.eventID == message.id)
      let after = await scenario.resolve(configuration, cache: try folder.cache(now: later), now: later)
      #expect(after.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test func neverPresentsAMessageAgainEightDaysLater() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let message = scenario.message("once")
    let server = try await scenario.startRelay([message] + scenario.enrichmentEvents())
    try await server.serving {
      var configuration = try scenario.configuration(server, relayPubkey: true)
      configuration = try ResolverConfiguration(
        relay: configuration.relay, secretKey: scenario.account, relayPubkey: scenario.relayKey.publicKeyHex,
        budget: RelayScenario.generousTimeout, queryTimeout: RelayScenario.generousTimeout,
        presentationWindow: ResolverConfiguration.maxPresentationWindow)
      let first = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(first.outcome.notification?.target.eventID == message.id)
      let later = RelayScenario.now + 8 * 24 * 3600
      server.setNow(later)
      let second = await scenario.resolve(configuration, cache: try folder.cache(now: later), now: later)
      #expect(second.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test func asksSinceTheWindowAndNeverPresentsAnOlderMessage() async throws {
    let scenario = RelayScenario()
    let window: Int64 = 3 * 24 * 3600
    let old = scenario.message("old", createdAt: RelayScenario.now - window - 1)
    let server = try await scenario.startRelay([old])
    try await server.serving {
      let configuration = try scenario.configuration(
        server, relayPubkey: true,
        filters: [
          Filter(kinds: [9], tags: ["p": [scenario.account.publicKeyHex]]),
          Filter(kinds: [9], tags: ["p": [scenario.account.publicKeyHex]], since: RelayScenario.now - 10),
        ])
      let resolution = await scenario.resolve(configuration, cache: nil)
      #expect(resolution.outcome == .nothingNew(.noEligibleEvent, suppress: false))
      let query = try #require(server.requests().first { $0.path == "/query" })
      #expect(query.filters.map(\.since) == [RelayScenario.now - window, RelayScenario.now - 10])
    }
  }

  @Test func suppressesNothingNewWhenTheExtensionMayFilter() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([])
    try await server.serving {
      var configuration = try scenario.configuration(server, relayPubkey: true)
      configuration.canFilterNotifications = true
      let resolution = await scenario.resolve(configuration, cache: nil)
      #expect(resolution.outcome == .nothingNew(.noEligibleEvent, suppress: true))
    }
  }

  @Test func currentPlanIsTheClaimedMessageOnceClaimedAndTheFallbackBefore() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let message = scenario.message("plain text")
    // The profile answer is held back, so the wake sits in enrichment after its claim.
    let server = try await scenario.startRelay(
      [message] + scenario.enrichmentEvents(),
      faults: [RelayFault(path: "/query", kind: 0, action: .delay(milliseconds: 30_000))])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let cache = try folder.cache()
      let session = NotificationResolver(
        configuration: configuration, cache: cache, clock: .fixed(RelayScenario.now)
      )
      .start()
      // Asking `currentPlan()` before the claim would end the wake's claim: wait for the row.
      #expect(await Polling.eventually(within: .seconds(30)) { (try? cache.stats().deliveries) == 1 })
      let plan = session.currentPlan()
      let claimed = try #require(plan.message)
      #expect(claimed.target.eventID == message.id)
      #expect(claimed.title.hasPrefix("npub1"))
      #expect(claimed.body == "plain text")
      // What is handed over is what is marked presented: no later wake shows it again.
      #expect(await session.markPresented(plan))
      let later = RelayScenario.now + EnrichmentCache.claimLifetime + 1
      server.setNow(later)
      server.setFaults([])
      let next = await scenario.resolve(configuration, cache: try folder.cache(now: later), now: later)
      #expect(next.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test func currentPlanBeforeAnyClaimIsTheTimeoutFallbackAndStopsTheClaim() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let message = scenario.message("late")
    let server = try await scenario.startRelay(
      [message], faults: [RelayFault(path: "/query", kind: 9, action: .delay(milliseconds: 500))])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let session = NotificationResolver(
        configuration: configuration, cache: try folder.cache(), clock: .fixed(RelayScenario.now)
      ).start()
      #expect(session.currentPlan().outcome == .fallback(.timeout))
      #expect(await session.plan().outcome == .fallback(.timeout))
      // Nothing was claimed: the next wake presents the message.
      let next = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(next.outcome.notification?.target.eventID == message.id)
    }
  }
}
