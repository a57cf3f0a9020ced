import Foundation
import NostrEvent
import NostrPushTesting
import NotificationResolver
import PushLease
import Testing

/// What keeps a social event out: muted senders and threads (which the relay's `ignore` filters
/// also apply, and both sides agree on), muted words and hashtags and `onlyFrom` (the extension
/// alone).
@Suite(.timeLimit(.minutes(2))) struct SocialMuteTests {
  static let root = String(repeating: "3c", count: 32)

  /// Whether one wake with `configuration` on a relay serving `events` presents something.
  static func shows(
    _ world: SocialScenario, _ events: [Event], social: SocialSettings? = nil, muted: [String] = []
  )
    async throws -> Bool
  {
    let server = try await world.base.startRelay(events)
    return try await server.serving {
      var configuration = try world.configuration(server, social: social, canFilter: true)
      if !muted.isEmpty {
        let subscriptions = configuration.subscriptions
        let settings = configuration.social
        configuration = try ResolverConfiguration(
          relay: configuration.relay, secretKey: world.account, subscriptions: subscriptions,
          mutedPubkeys: muted,
          relayPubkey: world.base.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
          queryTimeout: RelayScenario.generousTimeout, canFilterNotifications: true)
        configuration.social = settings
      }
      let plan = await world.resolve(configuration)
      if plan.message == nil { #expect(plan.outcome == .nothingNew(.noEligibleEvent, suppress: true)) }
      return plan.message != nil
    }
  }

  @Test func aMutedSenderIsKeptOut() async throws {
    let world = SocialScenario()
    let mention = world.note("hi", tags: [world.toAccount])
    #expect(try await Self.shows(world, [mention]))
    #expect(try await !Self.shows(world, [mention], muted: [world.sender.publicKeyHex]))
  }

  @Test func aMutedThreadIsKeptOut() async throws {
    let world = SocialScenario()
    let reply = world.note("in the thread", tags: [["e", Self.root, "", "root"], world.toAccount])
    let reaction = world.note("+", kind: EventKind.reaction, tags: [["e", Self.root], world.toAccount])
    #expect(try await Self.shows(world, [reply]))
    let muted = try SocialSettings(mutedThreads: [Self.root.uppercased()])
    #expect(try await !Self.shows(world, [reply], social: muted))
    #expect(try await !Self.shows(world, [reaction], social: muted))
  }

  @Test func aMutedWordIsKeptOutWhateverItsCase() async throws {
    let world = SocialScenario()
    let note = world.note("Selling CRYPTO cheap", tags: [world.toAccount])
    #expect(try await Self.shows(world, [note], social: SocialSettings(mutedWords: ["bitcoin"])))
    #expect(try await !Self.shows(world, [note], social: SocialSettings(mutedWords: ["crypto"])))
  }

  @Test func aMutedHashtagIsKeptOut() async throws {
    let world = SocialScenario()
    let note = world.note("look #Politics", tags: [world.toAccount, ["t", "Politics"]])
    #expect(try await Self.shows(world, [note], social: SocialSettings(mutedHashtags: ["sports"])))
    #expect(try await !Self.shows(world, [note], social: SocialSettings(mutedHashtags: ["#politics"])))
  }

  @Test func onlyFromKeepsOutEveryoneElse() async throws {
    let world = SocialScenario()
    let note = world.note("hello", tags: [world.toAccount])
    #expect(
      try await Self.shows(world, [note], social: SocialSettings(onlyFrom: [world.sender.publicKeyHex])))
    #expect(
      try await !Self.shows(world, [note], social: SocialSettings(onlyFrom: [world.base.other.publicKeyHex])))
    // A zap is judged by its requester, not the zapper service that signed the receipt.
    let zap = try world.zapReceipt(world.zapRequest(target: Self.root))
    #expect(try await Self.shows(world, [zap], social: SocialSettings(onlyFrom: [world.sender.publicKeyHex])))
    #expect(
      try await !Self.shows(world, [zap], social: SocialSettings(onlyFrom: [world.zapper.publicKeyHex])))
  }

  @Test func settingsRefuseWhatIsNotAnIDOrAWord() {
    #expect(throws: ResolverError.self) { try SocialSettings(mutedThreads: ["note1abc"]) }
    #expect(throws: ResolverError.self) { try SocialSettings(onlyFrom: ["npub1xyz"]) }
    #expect(throws: ResolverError.self) { try SocialSettings(mutedWords: ["  "]) }
    let error = #expect(throws: ResolverError.self) { try SocialSettings(zapperPubkeys: ["zz"]) }
    #expect(error?.field == "zapper_pubkeys[0]")
  }

  /// The same lease on both sides: the relay's rule (`LeaseSubscription.matches`, what its matcher
  /// calls) and the extension's wake agree, event by event, on muted senders and muted threads.
  @Test func theRelaysRuleAndTheExtensionAgree() async throws {
    let world = SocialScenario()
    let muted = SecretKey.generate()
    let kinds = [EventKind.textNote, EventKind.reaction]
    let subscription = try LeaseSubscription(
      filter: LeaseFilter(kinds: kinds, pTags: [world.account.publicKeyHex], descriptor: nil),
      class: "default",
      ignore: [
        LeaseFilter(kinds: kinds, authors: [world.account.publicKeyHex], descriptor: nil),
        LeaseFilter(kinds: kinds, authors: [muted.publicKeyHex], descriptor: nil),
        LeaseFilter(kinds: kinds, eTags: [Self.root], descriptor: nil),
      ])
    let events = [
      world.note("from a muted sender", by: muted, tags: [world.toAccount]),
      world.note("in a muted thread", tags: [["e", Self.root, "", "root"], world.toAccount]),
      world.note("+", kind: EventKind.reaction, tags: [["e", Self.root], world.toAccount]),
      world.note("a plain mention", tags: [world.toAccount]),
      world.note("my own", by: world.account, tags: [world.toAccount]),
    ]
    for event in events {
      let wakes = subscription.matches(event, owner: world.account.publicKeyHex, roster: { _ in nil })
      let server = try await world.base.startRelay([event])
      let shown = try await server.serving {
        var configuration = try ResolverConfiguration(
          relay: RelayOrigin(server.origin!), secretKey: world.account, subscriptions: [subscription],
          mutedPubkeys: [muted.publicKeyHex], relayPubkey: world.base.relayKey.publicKeyHex,
          budget: RelayScenario.generousTimeout, queryTimeout: RelayScenario.generousTimeout)
        configuration.social = try SocialSettings(mutedThreads: [Self.root])
        return await world.resolve(configuration).message != nil
      }
      #expect(wakes == shown, "\(event.content)")
      #expect(wakes == (event.content == "a plain mention"))
    }
  }
}
