import EnrichmentCache
import NostrEvent
import NostrPushTesting
import NotificationResolver
import Testing

/// Several accounts enrolled with one relay share a wake (`Docs/NotificationServiceExtension.md`): their
/// candidates meet in one ordering, and a message two accounts see is presented once.
@Suite(.timeLimit(.minutes(2))) struct ResolverAccountsTests {
  let scenario = RelayScenario()
  let second = SecretKey.generate()

  /// A channel message from the sender mentioning `accounts`.
  func message(_ content: String, to accounts: [SecretKey], age: Int64) -> Event {
    scenario.sign(
      scenario.sender, kind: 9, content: content,
      tags: [["h", RelayScenario.channel]] + accounts.map { ["p", $0.publicKeyHex] },
      createdAt: RelayScenario.now - age)
  }

  func configurations(_ server: RelayFixtureServer, order keys: [SecretKey]) throws -> [ResolverConfiguration]
  {
    try keys.map { key in
      try ResolverConfiguration(
        relay: RelayOrigin(server.origin!), secretKey: key, relayPubkey: scenario.relayKey.publicKeyHex,
        budget: RelayScenario.generousTimeout, queryTimeout: RelayScenario.generousTimeout)
    }
  }

  func resolve(_ configurations: [ResolverConfiguration], cache: EnrichmentCache?) async throws -> Resolution
  {
    try await NotificationResolver(
      configurations: configurations, cache: cache, clock: .fixed(RelayScenario.now)
    )
    .resolve()
  }

  @Test func coversEveryAccountsMessagesInOneOrderingAndEachOnce() async throws {
    let folder = TemporaryFolder()
    let onlyFirst = message("first only", to: [scenario.account], age: 300)
    let shared = message("both", to: [scenario.account, second], age: 200)
    let onlySecond = message("second only", to: [second], age: 100)
    let server = try await scenario.startRelay([onlyFirst, shared, onlySecond])
    try await server.serving {
      let configurations = try configurations(server, order: [scenario.account, second])
      let cache = try folder.cache()
      let first = try await resolve(configurations, cache: cache)
      let notification = try #require(first.outcome.notification)
      #expect(notification.target.eventID == onlySecond.id)
      #expect(notification.account == second.publicKeyHex)
      #expect(notification.moreCount == 2)
      #expect(try cache.stats().deliveries == 3)
      let next = try await resolve(configurations, cache: try folder.cache())
      #expect(next.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test(arguments: [false, true]) func presentsASharedMessageForTheFirstAccountInOrder(_ reversed: Bool)
    async throws
  {
    let folder = TemporaryFolder()
    let shared = message("both", to: [scenario.account, second], age: 100)
    let server = try await scenario.startRelay([shared])
    try await server.serving {
      let order = reversed ? [second, scenario.account] : [scenario.account, second]
      let resolution = try await resolve(try configurations(server, order: order), cache: try folder.cache())
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.account == order[0].publicKeyHex)
      #expect(notification.moreCount == 0)
    }
  }

  @Test func resolvesForTheAccountsThatWereNotRemoved() async throws {
    let folder = TemporaryFolder()
    let forSecond = message("for the second", to: [second], age: 100)
    let server = try await scenario.startRelay([
      message("for the first", to: [scenario.account], age: 50), forSecond,
    ])
    try await server.serving {
      let cache = try folder.cache()
      _ = try cache.removeAccount(scenario.account.publicKeyHex, now: RelayScenario.now)
      let resolution = try await resolve(
        try configurations(server, order: [scenario.account, second]), cache: cache)
      #expect(resolution.outcome.notification?.target.eventID == forSecond.id)
      #expect(resolution.outcome.notification?.account == second.publicKeyHex)
    }
  }

  @Test func refusesNoAccountsOrTwoRelays() throws {
    #expect(throws: ResolverError.self) { try NotificationResolver(configurations: [], cache: nil) }
    let one = try ResolverConfiguration(relay: RelayOrigin("http://127.0.0.1:1"), secretKey: scenario.account)
    let other = try ResolverConfiguration(relay: RelayOrigin("http://127.0.0.1:2"), secretKey: second)
    #expect(throws: ResolverError.self) {
      try NotificationResolver(configurations: [one, other], cache: nil)
    }
  }
}
