import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import NotificationResolver
import PushLease
import Testing

/// The plan's fields (`Docs/NotificationServiceExtension.md`), each from a real wake against the loopback
/// fixture relay with signed events, and the avatar copies as real files.
@Suite(.timeLimit(.minutes(2))) struct NotificationPlanTests {
  /// A configuration for the account with lease `subscriptions` (JSON) and the entitlement flags.
  static func configuration(
    _ scenario: RelayScenario, _ server: RelayFixtureServer, subscriptions: String? = nil,
    avatarDirectory: String? = nil, canFilter: Bool = false, criticalAlerts: Bool = false
  ) throws -> ResolverConfiguration {
    let parsed = try subscriptions.map { try LeaseSubscription.list(jsonValue: try JSONReader().read($0)) }
    return try ResolverConfiguration(
      relay: RelayOrigin(server.origin!), secretKey: scenario.account, subscriptions: parsed,
      relayPubkey: scenario.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
      queryTimeout: RelayScenario.generousTimeout, avatarDirectory: avatarDirectory,
      canFilterNotifications: canFilter, canSendCriticalAlerts: criticalAlerts)
  }

  /// A mention subscription of `pushClass` for the account.
  static func mention(_ scenario: RelayScenario, class pushClass: String) -> String {
    "{\"filter\":{\"kinds\":[9],\"#p\":[\"\(scenario.account.publicKeyHex)\"]},\"class\":\"\(pushClass)\"}"
  }

  /// A WebP header (`RIFF`, size, `WEBP`, `VP8 `) with filler: WebP by its magic number.
  static let webp: [UInt8] =
    Array("RIFF".utf8) + [64, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 1, count: 56)

  @Test func eachPushClassGivesItsInterruptionLevelAndSound() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([scenario.message("hi")])
    try await server.serving {
      let expected: [(String, Bool, NotificationPlan.InterruptionLevel, NotificationPlan.Sound?)] = [
        ("silent", false, .passive, nil), ("default", false, .active, .default),
        ("time_sensitive", false, .timeSensitive, .default), ("urgent", false, .timeSensitive, .default),
        ("silent", true, .passive, nil), ("default", true, .active, .default),
        ("time_sensitive", true, .timeSensitive, .default), ("urgent", true, .critical, .defaultCritical),
      ]
      for (pushClass, critical, level, sound) in expected {
        let configuration = try Self.configuration(
          scenario, server, subscriptions: "[" + Self.mention(scenario, class: pushClass) + "]",
          criticalAlerts: critical)
        let plan = await scenario.resolve(configuration, cache: nil).plan
        #expect(plan.message != nil, "\(pushClass)")
        #expect(plan.interruptionLevel == level, "\(pushClass), critical alerts \(critical)")
        #expect(plan.sound == sound, "\(pushClass), critical alerts \(critical)")
      }
    }
  }

  /// The highest class among the subscriptions the message matched; one it does not match counts
  /// for nothing.
  @Test func theHighestMatchedClassWins() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([scenario.message("hi")])
    try await server.serving {
      let subscriptions =
        "[" + Self.mention(scenario, class: "default") + ","
        + Self.mention(scenario, class: "time_sensitive") + ","
        + "{\"filter\":{\"kinds\":[45001],\"#p\":[\"\(scenario.account.publicKeyHex)\"]},\"class\":\"urgent\"}]"
      let plan = await scenario.resolve(
        try Self.configuration(scenario, server, subscriptions: subscriptions, criticalAlerts: true),
        cache: nil
      ).plan
      #expect(plan.interruptionLevel == .timeSensitive)
    }
  }

  @Test func relevanceIsOneForAMentionHalfForAChannelMessageZeroForAFallback() async throws {
    let scenario = RelayScenario()
    let channelMessage = scenario.sign(
      scenario.sender, kind: 9, content: "to everyone", tags: [["h", RelayScenario.channel]],
      createdAt: RelayScenario.now - 60)
    let mention = scenario.message("to you", createdAt: RelayScenario.now - 30)
    let server = try await scenario.startRelay([channelMessage])
    try await server.serving {
      let channel =
        "[{\"filter\":{\"kinds\":[9],\"#h\":[\"\(RelayScenario.channel)\"]},\"class\":\"default\"}]"
      let configuration = try Self.configuration(scenario, server, subscriptions: channel)
      let first = await scenario.resolve(configuration, cache: nil).plan
      #expect(first.message?.target.eventID == channelMessage.id)
      #expect(first.relevanceScore == 0.5)
      // The mention is newer: the next wake shows it.
      try server.add([mention])
      let second = await scenario.resolve(configuration, cache: nil).plan
      #expect(second.message?.target.eventID == mention.id)
      #expect(second.relevanceScore == 1)
      let folder = TemporaryFolder()
      _ = await scenario.resolve(configuration, cache: try folder.cache())
      let third = await scenario.resolve(configuration, cache: try folder.cache()).plan
      #expect(third.outcome == .nothingNew(.alreadyDelivered, suppress: false))
      #expect(third.relevanceScore == 0)
      #expect(third.interruptionLevel == .active)
    }
    let failing = try await scenario.startRelay(
      [mention], faults: [RelayFault(path: "/query", action: .status(503))])
    try await failing.serving {
      let plan = await scenario.resolve(try Self.configuration(scenario, failing), cache: nil).plan
      #expect(plan.outcome == .fallback(.relayError))
      #expect(plan.relevanceScore == 0)
      #expect(plan.interruptionLevel == .active)
      #expect(plan.sound == .default)
      #expect(plan.communication == nil)
      #expect(plan.targetContentIdentifier == nil)
      #expect(plan.userInfo == ["relay_origin": failing.origin!])
    }
  }

  @Test func userInfoHoldsTheKnownKeysAndNeverAnEmptyString() async throws {
    let scenario = RelayScenario()
    let parent = String(repeating: "ab", count: 32)
    let reply = scenario.message(
      "in a thread", extraTags: [["e", parent, "", "reply"]], createdAt: RelayScenario.now - 60)
    let loose = scenario.sign(
      scenario.sender, kind: 9, content: "no channel id",
      tags: [["h", "general"], ["p", scenario.account.publicKeyHex]], createdAt: RelayScenario.now - 30)
    let server = try await scenario.startRelay([reply])
    try await server.serving {
      let configuration = try Self.configuration(scenario, server)
      let origin = server.origin!
      let first = await scenario.resolve(configuration, cache: nil).plan
      #expect(
        first.userInfo == [
          "account": scenario.account.publicKeyHex, "relay_origin": origin, "event_id": reply.id,
          "channel_id": RelayScenario.channel, "thread_id": parent,
        ])
      #expect(first.targetContentIdentifier == origin + "#" + reply.id)
      try server.add([loose])
      let second = await scenario.resolve(configuration, cache: nil).plan
      #expect(second.message?.target.eventID == loose.id)
      #expect(
        second.userInfo == [
          "account": scenario.account.publicKeyHex, "relay_origin": origin, "event_id": loose.id,
        ])
      for plan in [first, second] {
        #expect(plan.userInfo.values.allSatisfy { !$0.isEmpty })
      }
    }
  }

  /// iOS moves an attachment's file away: every plan has its own copy, and the communication
  /// avatar is yet another.
  @Test func twoNotificationsWithTheSameAvatarGetTwoFilesEachReadableAlone() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let older = scenario.message("first", createdAt: RelayScenario.now - 60)
    let newer = scenario.message("second", createdAt: RelayScenario.now - 30)
    let server = try await scenario.startRelay([older], media: ["a.png": ImageBytes.png])
    try await server.serving {
      try server.add(scenario.enrichmentEvents(picture: server.origin! + "/media/a.png"))
      let configuration = try Self.configuration(scenario, server, avatarDirectory: folder.path + "/avatars")
      let first = await scenario.resolve(configuration, cache: try folder.cache()).plan
      try server.add([newer])
      let second = await scenario.resolve(configuration, cache: try folder.cache()).plan
      #expect(first.message?.target.eventID == older.id)
      #expect(second.message?.target.eventID == newer.id)
      // The resolver stores one file per image; each plan copies it.
      #expect(first.message?.avatarFile != nil && first.message?.avatarFile == second.message?.avatarFile)
      let a = try #require(first.attachment)
      let b = try #require(second.attachment)
      #expect(a.format == .png && b.format == .png)
      #expect(a.file != b.file)
      #expect(a.file != first.message?.avatarFile && b.file != second.message?.avatarFile)
      try FileManager.default.removeItem(atPath: a.file)
      #expect(FileManager.default.contents(atPath: b.file).map { [UInt8]($0) } == ImageBytes.png)
      let senderAvatar = try #require(second.communication?.avatarFile)
      #expect(senderAvatar != b.file)
      try FileManager.default.removeItem(atPath: b.file)
      #expect(FileManager.default.contents(atPath: senderAvatar).map { [UInt8]($0) } == ImageBytes.png)
      #expect(second.avatarSkipped == nil)
    }
  }

  @Test func aWebPAvatarIsSkippedWhereImageIOIsMissing() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay([scenario.message("hi")], media: ["a.webp": Self.webp])
    try await server.serving {
      try server.add(scenario.enrichmentEvents(picture: server.origin! + "/media/a.webp"))
      let plan = await scenario.resolve(
        try Self.configuration(scenario, server, avatarDirectory: folder.path + "/avatars"),
        cache: try folder.cache()
      ).plan
      // The resolver stored the WebP (a format it accepts), but no notification can attach it.
      #expect(plan.message?.avatarFile?.hasSuffix(".webp") == true)
      #if canImport(ImageIO)
      // ImageIO converts a decodable WebP; this filler is not one, so it is skipped all the same.
      #expect(plan.attachment == nil || plan.attachment?.format == .png)
      #else
      #expect(plan.attachment == nil)
      #expect(plan.avatarSkipped == .unsupportedFormat)
      #expect(plan.communication?.avatarFile == nil)
      #endif
      #expect(plan.communication?.senderName == "Alice")
    }
  }

  @Test func aCommunicationPlanOnlyWithANamedSender() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([scenario.message("hi")])
    try await server.serving {
      let unnamed = await scenario.resolve(try Self.configuration(scenario, server), cache: nil).plan
      #expect(unnamed.message?.enrichment == EnrichmentSource.none)
      #expect(unnamed.communication == nil)
      try server.add(scenario.enrichmentEvents(name: "Alice"))
      let named = await scenario.resolve(try Self.configuration(scenario, server), cache: nil).plan
      let message = try #require(named.message)
      #expect(
        named.communication
          == NotificationPlan.Communication(
            senderName: "Alice", handle: message.senderNpub, avatarFile: nil,
            conversationIdentifier: message.threadIdentifier, groupName: "general", recipientCount: 2))
      #expect(message.senderNpub.hasPrefix("npub1"))
    }
  }

  @Test func suppressOnlyForNothingNewWithTheFilteringEntitlement() async throws {
    let scenario = RelayScenario()
    let empty = try await scenario.startRelay([])
    try await empty.serving {
      for canFilter in [false, true] {
        let plan = await scenario.resolve(
          try Self.configuration(scenario, empty, canFilter: canFilter), cache: nil
        ).plan
        #expect(plan.outcome == .nothingNew(.noEligibleEvent, suppress: canFilter))
        #expect(plan.suppress == canFilter)
        #expect(plan.title == FallbackContent.title && plan.body == FallbackContent.body)
      }
    }
    let failing = try await scenario.startRelay(
      [], faults: [RelayFault(path: "/query", action: .status(503))])
    try await failing.serving {
      let plan = await scenario.resolve(
        try Self.configuration(scenario, failing, canFilter: true), cache: nil
      ).plan
      #expect(plan.outcome == .fallback(.relayError))
      #expect(plan.suppress == false)
    }
    let server = try await scenario.startRelay([scenario.message("hi")])
    try await server.serving {
      let plan = await scenario.resolve(try Self.configuration(scenario, server, canFilter: true), cache: nil)
        .plan
      #expect(plan.message != nil)
      #expect(plan.suppress == false)
    }
  }

  /// The plan crosses process boundaries as JSON (an app may log or hand it on) and reads back
  /// equal; the expiry path hands out the same plan (the same files) as the final one.
  @Test func aPlanReadsBackEqualAndTheSessionHandsOutOnePlanPerOutcome() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay([scenario.message("hi")], media: ["a.png": ImageBytes.png])
    try await server.serving {
      try server.add(scenario.enrichmentEvents(picture: server.origin! + "/media/a.png"))
      let session = NotificationResolver(
        configuration: try Self.configuration(scenario, server, avatarDirectory: folder.path + "/avatars"),
        cache: try folder.cache(), clock: .fixed(RelayScenario.now)
      ).start()
      let plan = await session.plan().plan
      #expect(session.currentPlan() == plan)
      #expect(plan.attachment != nil)
      let decoded = try JSONDecoder().decode(NotificationPlan.self, from: try JSONEncoder().encode(plan))
      #expect(decoded == plan)
      #expect(await session.markPresented(plan))
    }
  }
}
