import Foundation
import NostrEvent
import Testing

@testable import EnrichmentCache

@Suite struct EventEntryTests {
  let folder: TemporaryFolder
  let cache: EnrichmentCache
  let account = randomHex()
  let sender = EventFactory()
  let relayKey = EventFactory()

  init() throws {
    folder = try TemporaryFolder()
    cache = try EnrichmentCache(path: folder.path())
  }

  func storedProfile() throws -> Profile? {
    try cache.lookupProfile(account: account, relay: testRelay, pubkey: sender.pubkey, now: testNow)?.value
  }

  @Test func storesAVerifiedProfileByTheDisplayNameRule() throws {
    let event = try sender.profile([
      "name": "alice", "display_name": " \u{202E}Alice\n  Liddell ", "picture": " https://img.example/a.png ",
    ])
    #expect(try cache.storeProfile(event: event, account: account, relay: testRelay, now: testNow) == .stored)
    let stored = try #require(try storedProfile())
    #expect(stored.displayName == "Alice Liddell")
    #expect(stored.pictureURL == "https://img.example/a.png")
    #expect(stored.eventID == event.id)
    #expect(stored.createdAt == event.createdAt)
  }

  @Test func fallsBackToNameWhenDisplayNameIsBlank() throws {
    let event = try sender.profile(["name": "  bob  ", "display_name": "   "])
    try cache.storeProfile(event: event, account: account, relay: testRelay, now: testNow)
    #expect(try storedProfile()?.displayName == "bob")
  }

  @Test(arguments: ["javascript:alert(1)", "data:image/png;base64,AAAA", "", "https://a.example/b c.png"])
  func ignoresAPictureThatIsNotAnHTTPURL(picture: String) throws {
    let event = try sender.profile(["name": "carol", "picture": picture])
    try cache.storeProfile(event: event, account: account, relay: testRelay, now: testNow)
    #expect(try storedProfile()?.pictureURL == nil)
    #expect(try storedProfile()?.displayName == "carol")
  }

  @Test func refusesAnEventWhoseIDDoesNotVerify() throws {
    let event = try tampered(try sender.profile(["name": "mallory"]))
    let error = try #require(throws: CacheError.self) {
      try cache.storeProfile(event: event, account: account, relay: testRelay, now: testNow)
    }
    #expect(error.code == .invalidEvent)
    #expect(try storedProfile() == nil)
  }

  @Test func refusesAnEventOfAnotherKind() throws {
    let event = try sender.event(kind: 1, content: "{\"name\":\"x\"}")
    let error = try #require(throws: CacheError.self) {
      try cache.storeProfile(event: event, account: account, relay: testRelay, now: testNow)
    }
    #expect(error.code == .wrongKind)
    #expect(error.field == "kind")
  }

  @Test(arguments: ["not json", "[1,2]", "\"name\""])
  func refusesProfileContentThatIsNotAnObject(content: String) throws {
    let event = try sender.event(kind: 0, content: content)
    let error = try #require(throws: CacheError.self) {
      try cache.storeProfile(event: event, account: account, relay: testRelay, now: testNow)
    }
    #expect(error.code == .invalidField)
    #expect(error.field == "content")
  }

  @Test func storesChannelMetadataSignedByTheRelayKey() throws {
    let event = try relayKey.metadata("room", name: " Room\u{0000} One ", type: "forum")
    let outcome = try cache.storeChannelMetadata(
      event: event, relayKey: relayKey.pubkey, account: account, relay: testRelay, now: testNow)
    #expect(outcome == .stored)
    let stored = try #require(
      try cache.lookupChannel(account: account, relay: testRelay, channelID: "room", now: testNow))
    #expect(stored.value.name == "Room One")
    #expect(stored.value.type == .forum)
    #expect(stored.value.signer == relayKey.pubkey)
  }

  @Test func refusesChannelEventsFromAnotherSigner() throws {
    let impostor = EventFactory()
    let metadata = try impostor.metadata("room", name: "Fake")
    let error = try #require(throws: CacheError.self) {
      try cache.storeChannelMetadata(
        event: metadata, relayKey: relayKey.pubkey, account: account, relay: testRelay, now: testNow)
    }
    #expect(error.code == .wrongSigner)
    #expect(error.field == "pubkey")
    let membership = try impostor.membership("room", members: [randomHex()])
    let second = try #require(throws: CacheError.self) {
      try cache.storeMembership(
        event: membership, relayKey: relayKey.pubkey, account: account, relay: testRelay, now: testNow)
    }
    #expect(second.code == .wrongSigner)
  }

  @Test func refusesAMembershipWithOneMalformedMember() throws {
    let event = try relayKey.membership("room", members: [randomHex(), "npub1notahexkey"])
    let error = try #require(throws: CacheError.self) {
      try cache.storeMembership(
        event: event, relayKey: relayKey.pubkey, account: account, relay: testRelay, now: testNow)
    }
    #expect(error.code == .invalidField)
    #expect(error.field == "tags.p")
  }

  @Test func refusesAChannelEventWithoutChannelID() throws {
    let event = try relayKey.event(kind: 39000, tags: [["name", "No id"]])
    let error = try #require(throws: CacheError.self) {
      try cache.storeChannelMetadata(
        event: event, relayKey: relayKey.pubkey, account: account, relay: testRelay, now: testNow)
    }
    #expect(error.field == "tags.d")
  }

  @Test func storesAVerifiedPairAndGivesItsRecipientCount() throws {
    let me = randomHex()
    let outcome = try cache.storeChannel(
      metadata: try relayKey.metadata("room", name: "Room"),
      membership: try relayKey.membership("room", members: [me, sender.pubkey, randomHex()]),
      relayKey: relayKey.pubkey, account: account, relay: testRelay, now: testNow)
    #expect(outcome == ChannelStoreOutcome(metadata: .stored, membership: .stored))
    let metadata = try #require(
      try cache.lookupChannel(account: account, relay: testRelay, channelID: "room", now: testNow))
    let membership = try #require(
      try cache.lookupMembership(
        account: account, relay: testRelay, channelID: "room", member: sender.pubkey, now: testNow))
    #expect(membership.value.recipientCount(metadataSigner: metadata.value.signer) == 2)
  }
}
