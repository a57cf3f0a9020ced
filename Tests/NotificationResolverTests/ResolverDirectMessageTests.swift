import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import PushLease
import Testing

/// Direct messages (extension side) against the fixture relay: the gift-wrap
/// request of its own, every layer checked, a bad wrap dropped alone, the claim by rumor id,
/// names from the cache only, and no plaintext in the cache.
@Suite(.timeLimit(.minutes(2))) struct ResolverDirectMessageTests {
  static let now = RelayScenario.now

  /// The planner's mention and direct-message subscriptions for `account`.
  static func subscriptions(_ account: SecretKey) -> [LeaseSubscription] {
    [
      SubscriptionPlanner.mentionSubscription(for: account.publicKeyHex),
      SubscriptionPlanner.directMessageSubscription(for: account.publicKeyHex),
    ]
  }

  static func configuration(
    _ scenario: RelayScenario, _ server: RelayFixtureServer, muted: [String] = []
  ) throws -> ResolverConfiguration {
    try ResolverConfiguration(
      relay: RelayOrigin(server.origin!), secretKey: scenario.account,
      subscriptions: subscriptions(scenario.account), mutedPubkeys: muted,
      relayPubkey: scenario.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
      queryTimeout: RelayScenario.generousTimeout)
  }

  /// Puts the sender's profile named `name` in the cache, as the app's importer does.
  static func cacheProfile(
    _ scenario: RelayScenario, name: String, in cache: EnrichmentCache, relay: RelayOrigin
  )
    async throws
  {
    let importer = CacheImporter(cache: cache)
    let ticket = try importer.enqueue(
      ImportBatch(
        account: scenario.account.publicKeyHex, relay: relay, profiles: [scenario.profile(name: name)]))
    _ = try await importer.wait(for: ticket, timeout: .seconds(30))
  }

  /// Whether any request the relay saw asked about `pubkey` (as an author or a tag value).
  static func asked(about pubkey: String, _ server: RelayFixtureServer) -> Bool {
    server.requests().contains { request in
      request.filters.contains { filter in
        (filter.authors ?? []).contains(pubkey) || filter.tags.values.contains { $0.contains(pubkey) }
      }
    }
  }

  @Test func presentsTheSendersCachedNameAndTheTextAndAsksNothingAboutTheSender() async throws {
    let scenario = RelayScenario()
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let text = "Dinner at eight? Keep it quiet."
    let (wrap, rumorID) = try layers.message(text, writtenAt: Self.now - 30, wrappedAt: Self.now - 5000)
    // The relay holds a profile too; the resolver must not ask for it.
    let server = try await scenario.startRelay([wrap, scenario.profile(name: "Relay Name")])
    let folder = TemporaryFolder()
    let cache = try folder.cache()
    try await server.serving {
      let configuration = try Self.configuration(scenario, server)
      try await Self.cacheProfile(scenario, name: "Dana Cached", in: cache, relay: configuration.relay)
      let resolution = await scenario.resolve(configuration, cache: cache)
      await resolution.lingering.wait()
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.title == "Dana Cached")
      #expect(notification.enrichment == .cacheFresh)
      #expect(notification.body == text)
      #expect(notification.subtitle == nil)
      #expect(notification.kind == 14)
      #expect(notification.target.eventID == rumorID)
      #expect(notification.target.channelID == nil)
      #expect(
        notification.target.conversation
          == [scenario.account.publicKeyHex, scenario.sender.publicKeyHex].sorted())
      #expect(notification.senderPubkey == scenario.sender.publicKeyHex)
      #expect(resolution.plan.wrapID == wrap.id)
      #expect(resolution.plan.relevanceScore == 1)
      #expect(resolution.plan.communication?.groupName == nil)
      // The cached profile names no picture: no avatar, none fetched.
      #expect(resolution.plan.avatarSkipped == .notCached)

      // The gift-wrap request of its own; the message query never asks for wraps.
      let queries = server.requests().filter { $0.path == "/query" }.flatMap(\.filters)
      let wrapRequests = queries.filter { $0.kinds == [1059] }
      #expect(wrapRequests.count == 1)
      #expect(wrapRequests.first?.tags == ["p": [scenario.account.publicKeyHex]])
      #expect(wrapRequests.first?.limit == 20)
      #expect(wrapRequests.first?.since == Self.now - 3 * 24 * 3600 - 2 * 24 * 3600)
      #expect(queries.filter { $0.kinds?.contains(1059) == true }.count == 1)
      // Nothing keyed by the sender: no profile query, no avatar.
      #expect(!Self.asked(about: scenario.sender.publicKeyHex, server))
      #expect(!server.requests().contains { $0.path.hasPrefix("/media") })
    }
    // The cache holds no plaintext: neither the database file nor its WAL.
    let needle = Array("Keep it quiet".utf8)
    var searched = 0
    for suffix in ["", "-wal"] {
      guard let bytes = FileManager.default.contents(atPath: folder.path + "/cache.sqlite" + suffix) else {
        continue
      }
      searched += bytes.count
      #expect(!Array(bytes).contains(needle), "cache.sqlite\(suffix) holds the text")
    }
    #expect(searched > 0)
  }

  @Test func withoutACachedProfileShowsTheCompactNpub() async throws {
    let scenario = RelayScenario()
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let (wrap, _) = try layers.message(
      "Are you there?", writtenAt: Self.now - 30, wrappedAt: Self.now - 90_000)
    let server = try await scenario.startRelay([wrap, scenario.profile(name: "Relay Name")])
    let folder = TemporaryFolder()
    try await server.serving {
      let resolution = await scenario.resolve(
        try Self.configuration(scenario, server), cache: try folder.cache())
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.title.hasPrefix("npub1"))
      #expect(notification.title.contains("…"))
      #expect(notification.enrichment == .none)
      #expect(resolution.plan.avatarSkipped == .notCached)
      #expect(!Self.asked(about: scenario.sender.publicKeyHex, server))
    }
  }

  /// One way a wrap can be bad (`GiftWrapError`'s checks).
  enum BadWrap: String, CaseIterable, Sendable {
    case sealAuthorDiffersFromRumor
    case sealWithTags
    case wrongKeyWrap
    case tamperedSealSignature
    case rumorIDMismatch

    func wrap(_ layers: DirectMessageLayers, writtenAt: Int64, wrappedAt: Int64) throws -> Event {
      let text = "bad: \(rawValue)"
      switch self {
      case .sealAuthorDiffersFromRumor:
        // A rumor claiming someone else wrote it, sealed by the real signer.
        let claimed = SecretKey.generate().publicKeyHex
        let rumor = layers.rumor(author: claimed, content: text, createdAt: writtenAt)
        return try layers.wrap(layers.seal(rumor.json, createdAt: wrappedAt), createdAt: wrappedAt)
      case .sealWithTags:
        let rumor = layers.rumor(content: text, createdAt: writtenAt)
        let seal = try layers.seal(
          rumor.json, tags: [["p", layers.recipient.publicKeyHex]], createdAt: wrappedAt)
        return try layers.wrap(seal, createdAt: wrappedAt)
      case .wrongKeyWrap:
        // `p`-tagged to the recipient, encrypted to someone else.
        let rumor = layers.rumor(content: text, createdAt: writtenAt)
        return try layers.wrap(
          layers.seal(rumor.json, createdAt: wrappedAt), encryptTo: SecretKey.generate().publicKeyHex,
          createdAt: wrappedAt)
      case .tamperedSealSignature:
        let rumor = layers.rumor(content: text, createdAt: writtenAt)
        let seal = try DirectMessageLayers.tampered(layers.seal(rumor.json, createdAt: wrappedAt))
        return try layers.wrap(seal, createdAt: wrappedAt)
      case .rumorIDMismatch:
        let rumor = layers.rumor(
          content: text, createdAt: writtenAt, id: .some(String(repeating: "ab", count: 32)))
        return try layers.wrap(layers.seal(rumor.json, createdAt: wrappedAt), createdAt: wrappedAt)
      }
    }
  }

  @Test(arguments: BadWrap.allCases)
  func dropsABadWrapAndPresentsTheNextCandidate(bad: BadWrap) async throws {
    let scenario = RelayScenario()
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let newest = try bad.wrap(layers, writtenAt: Self.now - 10, wrappedAt: Self.now - 3600)
    let (older, olderID) = try layers.message(
      "the good one", writtenAt: Self.now - 100, wrappedAt: Self.now - 7200)
    let server = try await scenario.startRelay([newest, older])
    try await server.serving {
      let resolution = await scenario.resolve(try Self.configuration(scenario, server), cache: nil)
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.target.eventID == olderID)
      #expect(notification.body == "the good one")
      #expect(notification.moreCount == 0)
    }
  }

  @Test func presentsTwoWrapsOfOneRumorOnce() async throws {
    let scenario = RelayScenario()
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let rumor = layers.rumor(content: "sent twice", createdAt: Self.now - 40)
    let first = try layers.wrap(layers.seal(rumor.json, createdAt: Self.now - 500), createdAt: Self.now - 500)
    let second = try layers.wrap(
      layers.seal(rumor.json, createdAt: Self.now - 900), createdAt: Self.now - 900)
    #expect(first.id != second.id)
    let server = try await scenario.startRelay([first, second])
    let folder = TemporaryFolder()
    try await server.serving {
      let configuration = try Self.configuration(scenario, server)
      let resolution = await scenario.resolve(configuration, cache: try folder.cache())
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.target.eventID == rumor.id)
      #expect(notification.moreCount == 0)
      let again = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(again.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  @Test func presentsAWrapBackdated47Hours() async throws {
    let scenario = RelayScenario()
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let (wrap, rumorID) = try layers.message(
      "backdated wrap", writtenAt: Self.now - 20, wrappedAt: Self.now - 47 * 3600)
    let server = try await scenario.startRelay([wrap])
    try await server.serving {
      // The shortest window (1 hour): the rumor's time counts, not the wrap's.
      var configuration = try Self.configuration(scenario, server)
      configuration = try ResolverConfiguration(
        relay: configuration.relay, secretKey: scenario.account,
        subscriptions: Self.subscriptions(scenario.account),
        relayPubkey: scenario.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
        queryTimeout: RelayScenario.generousTimeout, presentationWindow: .seconds(3600))
      let resolution = await scenario.resolve(configuration, cache: nil)
      #expect(resolution.outcome.notification?.target.eventID == rumorID)
      #expect(resolution.plan.wrapID == wrap.id)
    }
  }

  @Test func neverPresentsTheAccountsOwnCopyOrAMutedSenderOrAnOldRumor() async throws {
    let scenario = RelayScenario()
    let own = DirectMessageLayers(sender: scenario.account, recipient: scenario.account)
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let muted = DirectMessageLayers(sender: scenario.other, recipient: scenario.account)
    let events = [
      try own.message("my own copy", writtenAt: Self.now - 10, wrappedAt: Self.now - 10).wrap,
      try muted.message("muted", writtenAt: Self.now - 20, wrappedAt: Self.now - 20).wrap,
      // Written four days ago, wrapped (backdated) inside the request's window: too old.
      try layers.message("old", writtenAt: Self.now - 4 * 24 * 3600, wrappedAt: Self.now - 3600).wrap,
    ]
    let server = try await scenario.startRelay(events)
    try await server.serving {
      let configuration = try Self.configuration(scenario, server, muted: [scenario.other.publicKeyHex])
      let resolution = await scenario.resolve(configuration, cache: nil)
      #expect(resolution.outcome == .nothingNew(.noEligibleEvent, suppress: false))
    }
  }

  @Test func namesAGroupBySubjectElseByItsSize() async throws {
    let scenario = RelayScenario()
    let layers = DirectMessageLayers(sender: scenario.sender, recipient: scenario.account)
    let members = [["p", scenario.account.publicKeyHex], ["p", scenario.other.publicKeyHex]]
    let (named, _) = try layers.message(
      "with a subject", writtenAt: Self.now - 10, wrappedAt: Self.now - 10,
      tags: members + [["subject", "Trip planning"]])
    let (unnamed, _) = try layers.message(
      "without one", writtenAt: Self.now - 20, wrappedAt: Self.now - 20, tags: members)
    var presented: [ResolvedNotification] = []
    for wrap in [named, unnamed] {
      let server = try await scenario.startRelay([wrap])
      try await server.serving {
        let resolution = await scenario.resolve(try Self.configuration(scenario, server), cache: nil)
        presented.append(try #require(resolution.outcome.notification))
      }
    }
    try #require(presented.count == 2)
    let (withSubject, withoutSubject) = (presented[0], presented[1])
    do {
      #expect(withSubject.subtitle == "Trip planning")
      #expect(withSubject.groupName == "Trip planning")
      #expect(withoutSubject.subtitle == "with 2 others")
      #expect(withoutSubject.groupName == nil)
      // One conversation: the same thread identifier and participants.
      #expect(withSubject.threadIdentifier == withoutSubject.threadIdentifier)
      #expect(withSubject.target.conversation?.count == 3)
      #expect(withSubject.recipientCount == 2)
    }
  }

  /// Wraps another implementation made (rust-nostr, `Fixtures/giftwrap/wraps.json`): the chat
  /// message presented once from its two wraps, a file message as `[file]`.
  @Test func presentsWrapsMadeByAnotherImplementation() async throws {
    let document = try JSONReader().read(
      [UInt8](try Data(contentsOf: PackageRoot.appending("Fixtures/giftwrap/wraps.json"))))
    let keys = try #require(document.objectValue?["test_keys"]?.objectValue)
    let account = try SecretKey(hex: try #require(keys["recipient_secret_key"]?.stringValue))
    var wraps: [String: Event] = [:]
    for value in document.objectValue?["cases"]?.arrayValue ?? [] {
      guard let name = value.objectValue?["name"]?.stringValue, let wrap = value.objectValue?["wrap"] else {
        continue
      }
      wraps[name] = try Event(jsonValue: wrap)
    }
    let written: Int64 = 1_767_225_600
    let data = RelayFixtureData(
      nip11: JSONWriter.bytes(.object(JSONObject(["name": .string("Fixture")]))),
      events: [try #require(wraps["chat"]), try #require(wraps["chat_again"]), try #require(wraps["file"])])
    let server = RelayFixtureServer(data: data, configuration: RelayFixtureConfiguration(now: written + 60))
    _ = try await server.start()
    let folder = TemporaryFolder()
    try await server.serving {
      let configuration = try ResolverConfiguration(
        relay: RelayOrigin(server.origin!), secretKey: account, subscriptions: Self.subscriptions(account),
        relayPubkey: SecretKey.generate().publicKeyHex, budget: RelayScenario.generousTimeout,
        queryTimeout: RelayScenario.generousTimeout)
      let cache = try folder.cache(now: written + 60)
      var bodies: [String] = []
      for _ in 0..<3 {
        let resolution = await NotificationResolver(
          configuration: configuration, cache: cache, clock: .fixed(written + 60)
        ).resolve()
        if let notification = resolution.outcome.notification {
          bodies.append(notification.body)
          #expect(notification.moreCount == 0 || notification.moreCount == 1)
        }
      }
      // Both messages were written in the same second: the first wake shows one and covers the
      // other (`and 1 more`); the two wraps of the chat message count once.
      #expect(bodies.count == 1)
      let body = try #require(bodies.first)
      #expect(body.hasSuffix("\nand 1 more"))
      #expect(body.hasPrefix("Lunch at noon? 🍜") || body.hasPrefix("[file]"))
    }
  }
}
