import EnrichmentCache
import NostrEvent
import NostrJSON
import NostrPushTesting
import NotificationResolver
import PushLease
import Testing

/// A wake keeps what the relay's own rule keeps (`LeaseSubscription.matches(_:owner:roster:)`),
/// and never a muted sender's message (`Docs/NotificationServiceExtension.md`), against the fixture relay.
@Suite(.timeLimit(.minutes(2))) struct ResolverSelectionTests {
  /// The planner's subscriptions for the scenario's account in its channel, with the channel
  /// muted when `muted`.
  func subscriptions(_ scenario: RelayScenario, muted: Bool = false) throws -> [LeaseSubscription] {
    let kinds = "[9,40002,45001,45003]"
    let account = scenario.account.publicKeyHex
    var ignore = "{\"kinds\":\(kinds),\"authors\":[\"\(account)\"]}"
    if muted { ignore += ",{\"kinds\":[9],\"#h\":[\"\(RelayScenario.channel)\"]}" }
    let json = try JSONReader().read(
      "[{\"filter\":{\"kinds\":\(kinds),\"#p\":[\"\(account)\"]},\"class\":\"default\","
        + "\"ignore\":[\(ignore)],\"suppress\":{\"p_tags_max\":3}}]")
    return try LeaseSubscription.list(jsonValue: json)
  }

  func configuration(
    _ scenario: RelayScenario, _ server: RelayFixtureServer, subscriptions: [LeaseSubscription],
    muted: [String] = []
  ) throws -> ResolverConfiguration {
    try ResolverConfiguration(
      relay: RelayOrigin(server.origin!), secretKey: scenario.account, subscriptions: subscriptions,
      mutedPubkeys: muted, relayPubkey: scenario.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
      queryTimeout: RelayScenario.generousTimeout)
  }

  @Test func presentsOnlyWhatTheLeaseSubscriptionsMatch() async throws {
    let scenario = RelayScenario()
    let crowded = scenario.message(
      "crowded", extraTags: (0..<3).map { _ in ["p", SecretKey.generate().publicKeyHex] },
      createdAt: RelayScenario.now - 10)
    let noChannel = scenario.sign(
      scenario.sender, kind: 9, content: "no h", tags: [["p", scenario.account.publicKeyHex]],
      createdAt: RelayScenario.now - 11)
    let twoChannels = scenario.message(
      "two h", extraTags: [["h", "0b7c4d2e-1f3a-4b5c-8d6e-7f8091a2b3c4"]], createdAt: RelayScenario.now - 12)
    let plain = scenario.message("plain", createdAt: RelayScenario.now - 100)
    let server = try await scenario.startRelay([crowded, noChannel, twoChannels, plain])
    try await server.serving {
      let resolution = await scenario.resolve(
        try configuration(scenario, server, subscriptions: subscriptions(scenario)), cache: nil)
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.target.eventID == plain.id)
      #expect(notification.moreCount == 0)
      // The query asked exactly the subscription's filter.
      let query = try #require(server.requests().first { $0.path == "/query" })
      #expect(query.filters.map(\.tags) == [["p": [scenario.account.publicKeyHex]]])
      #expect(query.filters.map(\.kinds) == [[9, 40002, 45001, 45003]])
    }
  }

  @Test func neverPresentsAMutedChannelsMessage() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([scenario.message("in a muted channel")])
    try await server.serving {
      let resolution = await scenario.resolve(
        try configuration(scenario, server, subscriptions: subscriptions(scenario, muted: true)), cache: nil)
      #expect(resolution.outcome == .nothingNew(.noEligibleEvent, suppress: false))
    }
  }

  @Test func neverPresentsAMutedSendersMessage() async throws {
    let scenario = RelayScenario()
    let fromOther = scenario.message("other", createdAt: RelayScenario.now - 100, from: scenario.other)
    let server = try await scenario.startRelay([scenario.message("muted sender"), fromOther])
    try await server.serving {
      let resolution = await scenario.resolve(
        try configuration(
          scenario, server, subscriptions: subscriptions(scenario),
          muted: [scenario.sender.publicKeyHex.uppercased()]),
        cache: nil)
      #expect(resolution.outcome.notification?.target.eventID == fromOther.id)
      #expect(resolution.outcome.notification?.moreCount == 0)
    }
  }

  @Test func refusesAnAuthorOutsideAKnownCompleteRoster() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let cache = try folder.cache()
    let outsider = scenario.message("outsider", createdAt: RelayScenario.now - 10, from: scenario.other)
    let member = scenario.message("member", createdAt: RelayScenario.now - 100)
    let server = try await scenario.startRelay([outsider, member])
    try await server.serving {
      let configuration = try configuration(scenario, server, subscriptions: subscriptions(scenario))
      let roster = try Roster(
        channelID: RelayScenario.channel,
        memberPubkeys: [scenario.account.publicKeyHex, scenario.sender.publicKeyHex],
        signer: scenario.relayKey.publicKeyHex, eventID: String(repeating: "ab", count: 32),
        createdAt: RelayScenario.now - 900)
      _ = try cache.storeChannel(
        metadata: nil, roster: roster, account: scenario.account.publicKeyHex, relay: configuration.relay,
        now: RelayScenario.now)
      let resolution = await scenario.resolve(configuration, cache: cache)
      #expect(resolution.outcome.notification?.target.eventID == member.id)
      #expect(resolution.outcome.notification?.moreCount == 0)
    }
  }

  @Test func presentsAnAuthorWhenNoRosterIsKnown() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([scenario.message("hi", from: scenario.other)])
    try await server.serving {
      let resolution = await scenario.resolve(
        try configuration(scenario, server, subscriptions: subscriptions(scenario)), cache: nil)
      #expect(resolution.outcome.notification?.senderPubkey == scenario.other.publicKeyHex)
    }
  }
}
