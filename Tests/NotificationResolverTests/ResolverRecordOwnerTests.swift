import EnrichmentCache
import NostrEvent
import NostrPushTesting
import NotificationResolver
import Testing

/// §4a: `EnrichmentCache` is the one owner of event → record, so the same channel events give the
/// same subtitle and recipient count whether the app's importer stored them or the extension
/// fetched them.
@Suite(.timeLimit(.minutes(2))) struct ResolverRecordOwnerTests {
  /// Metadata whose first `t` tag is not a channel type: the record's rule takes the first
  /// valid one (`stream`), so the subtitle is `#general`.
  func metadata(_ scenario: RelayScenario) -> Event {
    scenario.sign(
      scenario.relayKey, kind: 39000, content: "",
      tags: [["d", RelayScenario.channel], ["name", "general"], ["t", "chat"], ["t", "stream"]],
      createdAt: RelayScenario.now - 900)
  }

  /// A roster longer than the 10 000 keys kept, the sender past them.
  func roster(_ scenario: RelayScenario) -> Event {
    let others = (0..<Membership.maxStoredMembers).map { _ in SecretKey.generate().publicKeyHex }
    return scenario.membership([scenario.account.publicKeyHex] + others + [scenario.sender.publicKeyHex])
  }

  func resolve(_ scenario: RelayScenario, events: [Event], importing: [Event]) async throws
    -> ResolvedNotification
  {
    let folder = TemporaryFolder()
    let cache = try folder.cache()
    let server = try await scenario.startRelay([scenario.message("hi")] + events)
    return try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      if !importing.isEmpty {
        let importer = CacheImporter(cache: cache)
        let ticket = try importer.enqueue(
          ImportBatch(
            account: scenario.account.publicKeyHex, relay: configuration.relay,
            relayKey: scenario.relayKey.publicKeyHex,
            channels: [ChannelEvents(metadata: importing[0], membership: importing[1])]))
        _ = try await importer.wait(for: ticket, timeout: .seconds(30))
      }
      let resolution = await scenario.resolve(configuration, cache: cache)
      await resolution.lingering.wait()
      return try #require(resolution.outcome.notification)
    }
  }

  @Test func givesTheSameSubtitleAndCountWhoeverStoredTheChannel() async throws {
    let scenario = RelayScenario()
    let channel = [metadata(scenario), roster(scenario)]
    let fetched = try await resolve(scenario, events: channel, importing: [])
    let imported = try await resolve(scenario, events: [], importing: channel)
    #expect(fetched.subtitle == "#general")
    #expect(imported.subtitle == fetched.subtitle)
    // 10 002 members, the sender among them though past the 10 000 kept: 10 001 others.
    #expect(fetched.recipientCount == Membership.maxStoredMembers + 1)
    #expect(imported.recipientCount == fetched.recipientCount)
  }
}
