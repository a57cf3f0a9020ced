import NostrEvent
import NostrJSON
import NostrPushTesting
import NotificationResolver
import PushLease
import Testing

/// What wakes is what shows: a wake whose matching events are of a kind the resolver cannot
/// present is the `unsupported_kind` fallback — never `nothing_new`, never suppressed.
@Suite struct UnsupportedKindTests {
  /// A long-form article (NIP-23), a kind outside `EventKind`'s presentable ones.
  static let articleKind = 30023

  static func configuration(
    _ scenario: RelayScenario, _ server: RelayFixtureServer, canFilter: Bool, muted: [String] = []
  ) throws -> ResolverConfiguration {
    let subscription = LeaseSubscription(
      filter: LeaseFilter(
        kinds: [EventKind.chatMessage, Self.articleKind], pTags: [scenario.account.publicKeyHex]),
      pushClass: "default")
    return try ResolverConfiguration(
      relay: RelayOrigin(server.origin!), secretKey: scenario.account, subscriptions: [subscription],
      mutedPubkeys: muted, relayPubkey: scenario.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
      queryTimeout: RelayScenario.generousTimeout, canFilterNotifications: canFilter)
  }

  func article(_ scenario: RelayScenario, by key: SecretKey) -> Event {
    scenario.sign(
      key, kind: Self.articleKind, content: "an article", tags: [["p", scenario.account.publicKeyHex]])
  }

  @Test(arguments: [false, true])
  func anUnpresentableKindIsTheFallbackNeverSuppressed(canFilter: Bool) async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([article(scenario, by: scenario.sender)])
    try await server.serving {
      let plan = await scenario.resolve(
        try Self.configuration(scenario, server, canFilter: canFilter), cache: nil
      )
      .plan
      #expect(plan.outcome == .fallback(.unsupportedKind))
      #expect(plan.suppress == false)
      #expect(plan.title == FallbackContent.title)
    }
  }

  @Test func aPresentableMessageWinsOverAnUnpresentableOne() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [article(scenario, by: scenario.sender), scenario.message("hi", createdAt: RelayScenario.now - 120)]
        + scenario.enrichmentEvents())
    try await server.serving {
      let plan = await scenario.resolve(try Self.configuration(scenario, server, canFilter: true), cache: nil)
        .plan
      #expect(plan.message?.body == "hi")
    }
  }

  @Test func whatTheRelayWouldNotWakeForStaysNothingNew() async throws {
    let scenario = RelayScenario()
    // The account's own article and a muted sender's: the relay's rule wakes for neither.
    let server = try await scenario.startRelay([
      article(scenario, by: scenario.account), article(scenario, by: scenario.other),
    ])
    try await server.serving {
      let plan = await scenario.resolve(
        try Self.configuration(scenario, server, canFilter: true, muted: [scenario.other.publicKeyHex]),
        cache: nil
      ).plan
      #expect(plan.outcome == .nothingNew(.noEligibleEvent, suppress: true))
    }
  }
}
