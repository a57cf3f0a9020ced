import Bech32
import NostrEvent
import NostrPushTesting
import NotificationResolver
import PushLease
import Testing

/// `NotificationStrings` (`README.md`): every word around the message's own comes from one
/// replaceable table; resolving with a French table changes each of them, against the fixture
/// relay with real keys.
@Suite(.timeLimit(.minutes(2))) struct NotificationStringsTests {
  /// A French table with every key, a reason of its own for `relay_error`, and positional and
  /// `%lld` formats as Xcode's string catalogs write them.
  static let french: [String: String] = [
    "nostr_push.fallback.title": "Nouveau message",
    "nostr_push.fallback.body": "Ouvrez l’app pour le lire.",
    "nostr_push.fallback.body.relay_error": "Le relais a refusé (100 %%).",
    "nostr_push.sender.anonymous": "Quelqu’un",
    "nostr_push.more": "et %lld de plus",
    "nostr_push.direct.group": "avec %1$@ autres",
    "nostr_push.channel.subtitle": "« %@ »",
    "nostr_push.body.link": "[lien]",
    "nostr_push.body.code": "[programme]",
    "nostr_push.body.file": "[fichier]",
    "nostr_push.body.mention": "@@%@",
    "unrelated.app.key": "%s ignored",
  ]

  static func strings() throws -> NotificationStrings { try NotificationStrings(french) }

  @Test func englishDefaultsAreTheDocumentedWords() throws {
    let english = NotificationStrings.english
    #expect(english.fallbackTitle == "New message")
    #expect(
      FallbackReason.allCases.allSatisfy { english.fallbackBody(for: $0) == "Open the app to read it." })
    #expect(english.anonymousSender == "Someone")
    #expect(english.moreMessages(3) == "and 3 more")
    #expect(english.groupConversation(2) == "with 2 others")
    #expect(english.channelSubtitle("general") == "#general")
    #expect([english.link, english.code, english.file] == ["[link]", "[code]", "[file]"])
    #expect(english.mention("alice") == "@alice")
    #expect(try NotificationStrings([:]) == .english)
  }

  @Test func aFallbackReadsTheTableAndItsReasonsOwnBody() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("hi")], faults: [RelayFault(path: "/query", action: .status(503))])
    try await server.serving {
      var configuration = try scenario.configuration(server, relayPubkey: true)
      configuration.strings = try Self.strings()
      let refused = await scenario.resolve(configuration, cache: nil)
      #expect(refused.outcome == .fallback(.relayError))
      #expect(refused.plan.title == "Nouveau message")
      #expect(refused.plan.body == "Le relais a refusé (100 %).")
    }
    let unreachable = try await scenario.startRelay([])
    var configuration = try scenario.configuration(unreachable, relayPubkey: true)
    await unreachable.stop()
    configuration.strings = try Self.strings()
    let missed = await scenario.resolve(configuration, cache: nil)
    #expect(missed.outcome == .fallback(.relayUnreachable))
    #expect(missed.plan.title == "Nouveau message")
    #expect(missed.plan.body == "Ouvrez l’app pour le lire.")
  }

  @Test func aChannelMessageWithMoreReadsTheTable() async throws {
    let scenario = RelayScenario()
    let mentioned = try #require(CompactNpub.canonicalNpub(scenario.other.publicKeyHex))
    let older = (0..<2).map { scenario.message("m\($0)", createdAt: RelayScenario.now - 100 + Int64($0)) }
    let newest = scenario.message(
      "vu https://example.com ```let x``` nostr:\(mentioned)", createdAt: RelayScenario.now - 10)
    let server = try await scenario.startRelay(older + [newest] + scenario.enrichmentEvents())
    try await server.serving {
      var configuration = try scenario.configuration(server, relayPubkey: true)
      configuration.strings = try Self.strings()
      let resolution = await scenario.resolve(configuration, cache: nil)
      let notification = try #require(resolution.outcome.notification)
      let other = CompactNpub.display(for: scenario.other.publicKeyHex)
      #expect(notification.title == "Alice")
      #expect(notification.subtitle == "« general »")
      #expect(notification.body == "vu [lien] [programme] @@\(other)\net 2 de plus")
      #expect(resolution.plan.body == notification.body)
    }
  }

  @Test func aPlainMessageReadsTheTableAndStaysItsOwnWords() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("bonjour à tous")] + scenario.enrichmentEvents())
    try await server.serving {
      var configuration = try scenario.configuration(server, relayPubkey: true)
      configuration.strings = try Self.strings()
      let notification = try #require(await scenario.resolve(configuration, cache: nil).outcome.notification)
      #expect(notification.subtitle == "« general »")
      #expect(notification.body == "bonjour à tous")
    }
  }

  @Test func aGroupFileMessageWithMoreReadsTheTable() async throws {
    let scenario = RelayScenario()
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let members = [["p", scenario.account.publicKeyHex], ["p", scenario.other.publicKeyHex]]
    let (earlier, _) = try layers.message(
      "first", writtenAt: RelayScenario.now - 30, wrappedAt: RelayScenario.now - 30, tags: members)
    let file = layers.rumor(
      kind: 15, tags: members, content: "https://files.example/photo.jpg", createdAt: RelayScenario.now - 10)
    let wrap = try layers.wrap(
      try layers.seal(file.json, createdAt: RelayScenario.now - 10), createdAt: RelayScenario.now - 10)
    let server = try await scenario.startRelay([earlier, wrap])
    try await server.serving {
      let configuration = try ResolverConfiguration(
        relay: RelayOrigin(server.origin!), secretKey: scenario.account,
        subscriptions: [
          SubscriptionPlanner.mentionSubscription(for: scenario.account.publicKeyHex),
          SubscriptionPlanner.directMessageSubscription(for: scenario.account.publicKeyHex),
        ],
        relayPubkey: scenario.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
        queryTimeout: RelayScenario.generousTimeout, strings: try Self.strings())
      let notification = try #require(await scenario.resolve(configuration, cache: nil).outcome.notification)
      #expect(notification.target.eventID == file.id)
      #expect(notification.subtitle == "avec 2 autres")
      #expect(notification.body == "[fichier]\net 1 de plus")
    }
  }

  @Test func anUnnamedSenderReadsTheTable() throws {
    #expect(
      NotificationTitle.title(displayName: nil, compactNpub: nil, strings: try Self.strings()) == "Quelqu’un")
  }

  @Test(arguments: [
    ("nostr_push.more", "et %s de plus"), ("nostr_push.more", "%2$d de plus"), ("nostr_push.more", "100 %"),
    ("nostr_push.fallback.title", "Nouveau %@"), ("nostr_push.body.link", "%d liens"),
  ])
  func aFormatThatDoesNotFitItsKeyIsRefused(key: String, text: String) throws {
    let error = #expect(throws: ResolverError.self) { try NotificationStrings([key: text]) }
    #expect(error?.code == .invalidStrings)
    #expect(error?.field == key)
    let lenient = NotificationStrings(validEntriesOf: [key: text, "nostr_push.body.file": "[fichier]"])
    #expect(
      lenient.text(try #require(NotificationStrings.Key(rawValue: key)))
        == NotificationStrings.english.text(
          try #require(NotificationStrings.Key(rawValue: key))))
    #expect(lenient.file == "[fichier]")
  }

  @Test func everyKeyIsNamedOnceAndAReasonsBodyFallsBackToTheGeneralOne() throws {
    let keys = NotificationStrings.Key.all.map(\.rawValue)
    #expect(Set(keys).count == keys.count)
    #expect(keys.count == 20 + FallbackReason.allCases.count)
    #expect(NotificationStrings.Key(rawValue: "unrelated.app.key") == nil)
    let strings = try NotificationStrings(["nostr_push.fallback.body": "Ouvrez l’app."])
    #expect(strings.fallbackBody(for: .timeout) == "Ouvrez l’app.")
  }
}
