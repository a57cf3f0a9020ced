import Bech32
import EnrichmentCache
import Foundation
import NostrEvent
import NostrPushTesting
import NotificationResolver
import Testing

@Suite(.timeLimit(.minutes(2))) struct ResolverEnrichmentTests {
  @Test func enrichesAColdWakeFromTheRelay() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay(
      [scenario.message("hello `there`")] + scenario.enrichmentEvents(),
      faults: [])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, community: "Acme"), cache: try folder.cache())
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.title == "Alice")
      #expect(notification.subtitle == "#general")
      #expect(notification.body == "hello there")
      #expect(notification.recipientCount == 2)
      #expect(notification.enrichment == .refreshed)
      #expect(notification.target.channelID == RelayScenario.channel)
      #expect(notification.senderNpub == CompactNpub.canonicalNpub(scenario.sender.publicKeyHex))
      #expect(server.requestCount(path: "/query", kind: 0) == 1)
      #expect(server.requestCount(path: "/", kind: nil) == 1)
    }
  }

  @Test func makesNoEnrichmentRequestWhenTheCacheIsFresh() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let first = scenario.message("first", createdAt: RelayScenario.now - 120)
    let second = scenario.message("second", createdAt: RelayScenario.now - 60)
    let server = try await scenario.startRelay([first] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let cold = await scenario.resolve(configuration, cache: try folder.cache())
      await cold.lingering.wait()
      #expect(cold.outcome.notification?.target.eventID == first.id)
      try server.add([second])
      server.resetRequestLog()
      let warm = await scenario.resolve(configuration, cache: try folder.cache())
      let notification = try #require(warm.outcome.notification)
      #expect(notification.target.eventID == second.id)
      #expect(notification.enrichment == .cacheFresh)
      #expect(notification.title == "Alice")
      #expect(notification.subtitle == "#general")
      #expect(notification.recipientCount == 2)
      #expect(server.requests().map(\.path) == ["/query"])
      #expect(server.requestCount(path: "/query", kind: 0) == 0)
    }
  }

  @Test func showsTheCompactNpubWithoutCacheWhenEnrichmentFails() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("hi")] + scenario.enrichmentEvents(),
      faults: [
        RelayFault(path: "/query", kind: 0, action: .closeConnection),
        RelayFault(path: "/query", kind: 39000, action: .closeConnection),
        RelayFault(path: "/query", kind: 39002, action: .closeConnection),
      ])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: nil)
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.title == CompactNpub.display(for: scenario.sender.publicKeyHex))
      #expect(notification.title.hasPrefix("npub1") && notification.title.contains("…"))
      #expect(notification.enrichment == .none)
      #expect(notification.subtitle == nil)
      #expect(notification.recipientCount == nil)
    }
  }

  @Test func keepsProfileAndChannelNameWhenTheRosterIsOversized() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay(
      [scenario.message("hi")] + scenario.enrichmentEvents(),
      faults: [
        RelayFault(path: "/query", kind: 39002, action: .oversizedBody(bytes: 3 << 20, declaresLength: false))
      ])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: try folder.cache())
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.title == "Alice")
      #expect(notification.subtitle == "#general")
      #expect(notification.recipientCount == nil)
    }
  }

  @Test func rendersMentionsWithCachedNamesOrTheCompactNpub() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let otherNpub = try NIP19Entity.npub(pubkey: scenario.other.publicKeyHex).encoded()
    let senderNpub = try NIP19Entity.npub(pubkey: scenario.sender.publicKeyHex).encoded()
    let server = try await scenario.startRelay(
      [scenario.message("ping nostr:\(senderNpub) and nostr:\(otherNpub)")] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let resolution = await scenario.resolve(configuration, cache: try folder.cache())
      let body = try #require(resolution.outcome.notification?.body)
      #expect(body == "ping @Alice and @" + CompactNpub.display(for: scenario.other.publicKeyHex))
    }
  }

  @Test func discardsLateResultsForAnAccountRemovedMeanwhile() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay(
      [scenario.message("hi")] + scenario.enrichmentEvents(),
      faults: [RelayFault(path: "/query", kind: 0, action: .delay(milliseconds: 1500))])
    try await server.serving {
      let cache = try folder.cache()
      let configuration = try scenario.configuration(server, relayPubkey: true, budget: .milliseconds(100))
      let resolution = await scenario.resolve(configuration, cache: cache)
      #expect(resolution.outcome.notification != nil)
      let account = scenario.account.publicKeyHex
      try cache.removeAccount(account, now: RelayScenario.now)
      #expect(await resolution.lingering.wait(until: .now + RelayScenario.generousTimeout))
      try cache.addAccount(account, now: RelayScenario.now)
      let origin = try RelayOrigin(server.origin!)
      let profile = try cache.lookupProfile(
        account: account, relay: origin, pubkey: scenario.sender.publicKeyHex, now: RelayScenario.now)
      #expect(profile == nil)
    }
  }
}
