import Foundation
import NostrEvent
import NostrPushTesting
import NotificationResolver
import Testing

/// The social table row by row, against the fixture relay with events signed by real keys: title,
/// body, thread id, relevance, kind and `userInfo` of each.
@Suite(.timeLimit(.minutes(2))) struct SocialPresentationTests {
  static let root = String(repeating: "1a", count: 32)
  static let parent = String(repeating: "2b", count: 32)

  @Test func aMentionNamesItsSenderAndShowsTheNote() async throws {
    let world = SocialScenario()
    let mention = world.note("gm, have a look", tags: [world.toAccount])
    let server = try await world.base.startRelay([mention, world.base.profile(name: "Alice")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.title == "Alice mentioned you")
      #expect(plan.body == "gm, have a look")
      #expect(plan.threadIdentifier == (try world.thread(mention.id, on: server)))
      #expect(plan.relevanceScore == 1)
      #expect(plan.message?.kind == EventKind.textNote)
      #expect(plan.userInfo["social_kind"] == "mention")
      #expect(plan.userInfo["event_id"] == mention.id)
      #expect(plan.userInfo["target_id"] == nil && plan.userInfo["root_id"] == nil)
      #expect(plan.communication?.senderName == "Alice")
    }
  }

  @Test func aReplyGroupsByItsRoot() async throws {
    let world = SocialScenario()
    let reply = world.note(
      "agreed", tags: [["e", Self.root, "", "root"], ["e", Self.parent, "", "reply"], world.toAccount])
    let server = try await world.base.startRelay([reply, world.base.profile(name: "Alice")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.title == "Alice replied")
      #expect(plan.body == "agreed")
      #expect(plan.threadIdentifier == (try world.thread(Self.root, on: server)))
      #expect(plan.relevanceScore == 1)
      #expect(plan.userInfo["social_kind"] == "reply")
      #expect(plan.userInfo["target_id"] == Self.parent)
      #expect(plan.userInfo["root_id"] == Self.root)
      #expect(plan.message?.target.threadID == Self.parent)
      #expect(plan.communication != nil)
    }
  }

  @Test func aCommentReadsItsNIP22Root() async throws {
    let world = SocialScenario()
    let comment = world.note(
      "nice article", kind: EventKind.comment,
      tags: [["E", Self.root, "", world.account.publicKeyHex], ["e", Self.parent], world.toAccount])
    let server = try await world.base.startRelay([comment])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.title.hasSuffix(" replied") && plan.title.hasPrefix("npub1"))
      #expect(plan.threadIdentifier == (try world.thread(Self.root, on: server)))
      #expect(plan.userInfo["social_kind"] == "comment")
      #expect(plan.userInfo["root_id"] == Self.root && plan.userInfo["target_id"] == Self.parent)
      #expect(plan.message?.kind == EventKind.comment)
    }
  }

  @Test func aRepostShowsTheEmbeddedNoteOnlyWhenItIsTheAccountsAndVerifies() async throws {
    let world = SocialScenario()
    let own = world.note("my original thought", by: world.account, createdAt: RelayScenario.now - 3_600)
    let ownJSON = String(decoding: own.jsonBytes(), as: UTF8.self)
    let repost = world.note(ownJSON, kind: EventKind.repost, tags: [["e", own.id], world.toAccount])
    let server = try await world.base.startRelay([repost, world.base.profile(name: "Bob")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.title == "Bob reposted your note")
      #expect(plan.body == "my original thought")
      #expect(plan.threadIdentifier == (try world.thread(own.id, on: server)))
      #expect(plan.relevanceScore == 0.3)
      #expect(plan.userInfo["social_kind"] == "repost")
      #expect(plan.userInfo["target_id"] == own.id)
      #expect(plan.communication == nil)
    }
    // Tampered text (the signature no longer holds), or a note by someone else: `your note`.
    let tampered = ownJSON.replacingOccurrences(of: "my original thought", with: "something I never said")
    let stranger = world.note("not yours", by: world.base.other)
    for embedded in [tampered, String(decoding: stranger.jsonBytes(), as: UTF8.self)] {
      let other = SocialScenario()
      let event = other.note(
        embedded, kind: EventKind.genericRepost, tags: [["e", own.id], other.toAccount])
      let server = try await other.base.startRelay([event])
      try await server.serving {
        let plan = await other.resolve(try other.configuration(server))
        #expect(plan.body == "your note")
        #expect(plan.title.hasSuffix(" reposted your note"))
      }
    }
  }

  @Test(arguments: [
    ("+", "❤️"), ("", "❤️"), ("-", "👎"), ("🤙", "🤙"), (String(repeating: "long text ", count: 20), "long tex"),
  ])
  func aReactionShowsItsEmojiAndTheReactedNote(content: String, shown: String) async throws {
    let world = SocialScenario()
    let own = world.note("the reacted note", by: world.account, createdAt: RelayScenario.now - 3_600)
    let reaction = world.note(content, kind: EventKind.reaction, tags: [["e", own.id], world.toAccount])
    let server = try await world.base.startRelay([reaction, own, world.base.profile(name: "Carol")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.title == "Carol reacted \(shown)")
      #expect(plan.body == "the reacted note")
      #expect(plan.threadIdentifier == (try world.thread(own.id, on: server)))
      #expect(plan.relevanceScore == 0.3)
      #expect(plan.userInfo["social_kind"] == "reaction")
      #expect(plan.userInfo["target_id"] == own.id && plan.userInfo["root_id"] == own.id)
      #expect(plan.communication == nil)
    }
  }

  @Test func aReactionToANoteTheRelayLacksSaysYourNote() async throws {
    let world = SocialScenario()
    let reaction = world.note("+", kind: EventKind.reaction, tags: [["e", Self.root], world.toAccount])
    let server = try await world.base.startRelay([reaction])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.body == "your note")
    }
  }

  @Test func aCustomEmojiIsTheAttachmentInPlaceOfTheAvatar() async throws {
    let world = SocialScenario()
    let folder = TemporaryFolder()
    let server = try await world.base.startRelay([], media: ["soapbox.png": ImageBytes.png])
    try await server.serving {
      let reaction = world.note(
        ":soapbox:", kind: EventKind.reaction,
        tags: [
          ["e", Self.root], world.toAccount, ["emoji", "soapbox", server.origin! + "/media/soapbox.png"],
        ])
      try server.add([reaction, world.base.profile(name: "Dave")])
      let plan = await world.resolve(
        try world.configuration(server, avatarDirectory: folder.path + "/avatars"))
      #expect(plan.title == "Dave reacted :soapbox:")
      let attachment = try #require(plan.attachment)
      #expect(attachment.format == .png)
      #expect(FileManager.default.contents(atPath: attachment.file).map { [UInt8]($0) } == ImageBytes.png)
    }
  }

  @Test func aValidatedZapShowsItsAmountAndComment() async throws {
    let world = SocialScenario()
    let own = world.note("zap-worthy", by: world.account, createdAt: RelayScenario.now - 3_600)
    let receipt = try world.zapReceipt(world.zapRequest(target: own.id))
    let server = try await world.base.startRelay([receipt, own, world.base.profile(name: "Erin")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.title == "Erin zapped you 21 000 sats")
      #expect(plan.body == "great post ⚡\nzap-worthy")
      #expect(plan.threadIdentifier == (try world.thread(own.id, on: server)))
      #expect(plan.relevanceScore == 0.8)
      #expect(plan.userInfo["social_kind"] == "zap")
      #expect(plan.userInfo["target_id"] == own.id)
      #expect(plan.message?.social?.zapMillisatoshis == 21_000_000)
      #expect(plan.message?.senderPubkey == world.sender.publicKeyHex)
      #expect(plan.communication == nil)
    }
  }

  @Test func anAnonymousZapNamesNoOne() async throws {
    let world = SocialScenario()
    let receipt = try world.zapReceipt(world.zapRequest(target: Self.root, extraTags: [["anon"]]))
    let server = try await world.base.startRelay([receipt, world.base.profile(name: "Erin")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      #expect(plan.title == "Anonymous zapped you 21 000 sats")
    }
  }

  /// Each broken link of NIP-57 Appendix F costs the amount, never the notification.
  @Test(arguments: ZapBreak.allCases)
  func anUnvalidatedZapNeverShowsAnAmount(_ broken: ZapBreak) async throws {
    let world = SocialScenario()
    let receipt = try broken.receipt(world, target: Self.root)
    let server = try await world.base.startRelay([receipt])
    try await server.serving {
      let configuration = try world.configuration(
        server, social: broken == .noZapperConfigured ? SocialSettings() : nil)
      let plan = await world.resolve(configuration)
      #expect(plan.title.hasSuffix(" zapped you"), "\(broken): \(plan.title)")
      #expect(!plan.title.contains("sats"))
      #expect(plan.relevanceScore == 0.5)
      #expect(plan.message?.social?.zapMillisatoshis == nil)
      #expect(plan.userInfo["social_kind"] == "zap")
    }
  }

  @Test func aNIP04MessageIsNeverDecrypted() async throws {
    let world = SocialScenario()
    let message = world.note(
      "c2VjcmV0?iv=AAAA", kind: EventKind.encryptedDirectMessage, tags: [world.toAccount])
    let server = try await world.base.startRelay([message, world.base.profile(name: "Frank")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server))
      // Named from the cache only (none here): never a request keyed by a message's sender.
      #expect(plan.title.hasPrefix("npub1"))
      #expect(plan.body == "Encrypted message")
      #expect(
        plan.threadIdentifier
          == ThreadIdentifier.make(
            account: world.account.publicKeyHex,
            conversation: [world.sender.publicKeyHex, world.account.publicKeyHex]))
      #expect(plan.relevanceScore == 1)
      #expect(plan.userInfo["social_kind"] == "dm")
    }
  }
}

/// One broken link of a zap receipt.
enum ZapBreak: String, CaseIterable, CustomTestStringConvertible {
  case requestSignature, requestRecipient, amountMismatch, descriptionHash, signerNotZapper, noInvoiceAmount
  case noZapperConfigured

  var testDescription: String { rawValue }

  func receipt(_ world: SocialScenario, target: String) throws -> Event {
    let request = world.zapRequest(target: target)
    switch self {
    case .requestSignature:
      // The request's content changed after signing: its id and signature no longer hold.
      let json = String(decoding: request.jsonBytes(), as: UTF8.self)
        .replacingOccurrences(of: "great post", with: "awful post")
      let forged = try Event(json: Array(json.utf8))
      return try world.zapReceipt(forged)
    case .requestRecipient:
      return try world.zapReceipt(world.zapRequest(target: target, recipient: world.base.other.publicKeyHex))
    case .amountMismatch:
      return try world.zapReceipt(world.zapRequest(amount: "1000", target: target))
    case .descriptionHash:
      return try world.zapReceipt(request, described: "another description")
    case .signerNotZapper:
      return try world.zapReceipt(request, signer: SecretKey.generate())
    case .noInvoiceAmount:
      return try world.zapReceipt(world.zapRequest(amount: nil, target: target), invoiceAmount: "")
    case .noZapperConfigured:
      return try world.zapReceipt(request)
    }
  }
}

/// The social words come from `NotificationStrings`: a French table changes each, a format of two
/// arguments may reorder them, and a format naming an argument it does not have is refused.
@Suite(.timeLimit(.minutes(2))) struct SocialStringsTests {
  static let french = [
    "nostr_push.social.zap.amount": "%2$@ sats de %1$@", "nostr_push.number.grouping": ".",
    "nostr_push.social.reaction": "%@ a réagi %@", "nostr_push.social.your_note": "votre note",
    "nostr_push.social.mention": "%@ vous a mentionné", "nostr_push.social.anonymous": "Anonyme",
  ]

  @Test func aFrenchTableChangesTheSocialWords() async throws {
    let world = SocialScenario()
    let strings = try NotificationStrings(Self.french)
    #expect(strings.zapped("Erin", sats: 1_234_567) == "1.234.567 sats de Erin")
    #expect(strings.reacted("Carol", "🤙") == "Carol a réagi 🤙")
    #expect(strings.anonymousZapper == "Anonyme")
    let reaction = world.note(
      "+", kind: EventKind.reaction, tags: [["e", SocialPresentationTests.root], world.toAccount])
    let receipt = try world.zapReceipt(world.zapRequest(target: SocialPresentationTests.parent))
    let server = try await world.base.startRelay([reaction, world.base.profile(name: "Carol")])
    try await server.serving {
      let plan = await world.resolve(try world.configuration(server, strings: strings))
      #expect(plan.title == "Carol a réagi ❤️")
      #expect(plan.body == "votre note")
    }
    let zapServer = try await world.base.startRelay([receipt, world.base.profile(name: "Carol")])
    try await zapServer.serving {
      let zap = await world.resolve(try world.configuration(zapServer, strings: strings))
      #expect(zap.title == "21.000 sats de Carol")
    }
  }

  @Test(arguments: [
    ("nostr_push.social.zap.amount", "%3$@ sats"), ("nostr_push.social.mention", "%2$@ vous a mentionné"),
    ("nostr_push.social.your_note", "%@ note"),
  ])
  func aFormatNamingAMissingArgumentIsRefused(key: String, text: String) {
    let error = #expect(throws: ResolverError.self) { try NotificationStrings([key: text]) }
    #expect(error?.field == key)
  }
}
