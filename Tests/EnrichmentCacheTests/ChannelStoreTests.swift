import Foundation
import Testing

@testable import EnrichmentCache

@Suite struct ChannelStoreTests {
  let folder: TemporaryFolder
  let cache: EnrichmentCache
  let account = randomHex()
  let relayKey = randomHex()
  let channel = "general"

  init() throws {
    folder = try TemporaryFolder()
    cache = try EnrichmentCache(path: folder.path())
  }

  func metadata(_ name: String, createdAt: Int64 = 100, signer: String? = nil) -> ChannelMetadata {
    ChannelMetadata(
      channelID: channel, name: name, type: .stream, signer: signer ?? relayKey, eventID: randomHex(),
      createdAt: createdAt)
  }

  func roster(_ members: [String], createdAt: Int64 = 100, signer: String? = nil) throws -> Roster {
    try Roster(
      channelID: channel, memberPubkeys: members, signer: signer ?? relayKey, eventID: randomHex(),
      createdAt: createdAt)
  }

  func store(_ metadata: ChannelMetadata?, _ roster: Roster?, now: Int64 = testNow) throws
    -> ChannelStoreOutcome
  {
    try cache.storeChannel(metadata: metadata, roster: roster, account: account, relay: testRelay, now: now)
  }

  func storedName() throws -> String? {
    try cache.lookupChannel(account: account, relay: testRelay, channelID: channel, now: testNow)?.value.name
  }

  func storedCount() throws -> Int? {
    try cache.lookupMembership(account: account, relay: testRelay, channelID: channel, now: testNow)?.value
      .count
  }

  @Test func storesBothHalvesOfAPair() throws {
    let outcome = try store(metadata("General"), try roster([randomHex(), randomHex()]))
    #expect(outcome == ChannelStoreOutcome(metadata: .stored, membership: .stored))
    #expect(try storedName() == "General")
    #expect(try storedCount() == 2)
    let found = try #require(
      try cache.lookupChannel(account: account, relay: testRelay, channelID: channel, now: testNow))
    #expect(found.value.type == .stream)
    #expect(found.value.signer == relayKey)
    #expect(found.isFresh)
  }

  @Test func aNewMetadataAloneRemovesTheOldMembership() throws {
    _ = try store(metadata("Old name", createdAt: 100), try roster([randomHex()], createdAt: 100))
    let outcome = try store(metadata("New name", createdAt: 200), nil)
    #expect(outcome.metadata == .stored)
    #expect(try storedName() == "New name")
    #expect(try storedCount() == nil)
  }

  @Test func aNewMembershipAloneRemovesTheOldMetadata() throws {
    _ = try store(metadata("Old name", createdAt: 100), try roster([randomHex()], createdAt: 100))
    _ = try store(nil, try roster([randomHex(), randomHex(), randomHex()], createdAt: 200))
    #expect(try storedName() == nil)
    #expect(try storedCount() == 3)
  }

  @Test func theSameMetadataAgainKeepsTheMembership() throws {
    let name = metadata("Name", createdAt: 100)
    _ = try store(name, try roster([randomHex()]), now: testNow - 7200)
    #expect(try store(name, nil).metadata == .renewed)
    #expect(try storedCount() == 1)
    let membership = try cache.lookupMembership(
      account: account, relay: testRelay, channelID: channel, now: testNow)
    #expect(membership?.isFresh == false)
  }

  @Test func anOlderMetadataChangesNothing() throws {
    _ = try store(metadata("Current", createdAt: 200), try roster([randomHex()], createdAt: 200))
    #expect(try store(metadata("Stale", createdAt: 100), nil).metadata == .ignoredOlder)
    #expect(try storedName() == "Current")
    #expect(try storedCount() == 1)
  }

  @Test func aNewSigningAuthorityClearsBothHalves() throws {
    _ = try store(
      metadata("Old authority", createdAt: 500), try roster([randomHex(), randomHex()], createdAt: 500))
    let newKey = randomHex()
    let outcome = try store(metadata("New authority", createdAt: 10, signer: newKey), nil)
    #expect(outcome.metadata == .stored)
    let found = try cache.lookupChannel(account: account, relay: testRelay, channelID: channel, now: testNow)
    #expect(found?.value.name == "New authority")
    #expect(found?.value.signer == newKey)
    #expect(try storedCount() == nil)
  }

  @Test func givesARecipientCountOnlyForTheSameSigner() throws {
    let sender = randomHex()
    _ = try store(metadata("Team"), try roster([sender, randomHex(), randomHex()]))
    let membership = try #require(
      try cache.lookupMembership(
        account: account, relay: testRelay, channelID: channel, member: sender, now: testNow))
    #expect(membership.value.isListed == true)
    #expect(membership.value.recipientCount(metadataSigner: relayKey) == 2)
    #expect(membership.value.recipientCount(metadataSigner: randomHex()) == nil)
    let outsider = try #require(
      try cache.lookupMembership(
        account: account, relay: testRelay, channelID: channel, member: randomHex(), now: testNow))
    #expect(outsider.value.isListed == false)
    #expect(outsider.value.recipientCount(metadataSigner: relayKey) == 3)
  }

  @Test func refusesARecipientCountBelowOne() throws {
    let sender = randomHex()
    _ = try store(metadata("Solo"), try roster([sender]))
    let membership = try #require(
      try cache.lookupMembership(
        account: account, relay: testRelay, channelID: channel, member: sender, now: testNow))
    #expect(membership.value.recipientCount(metadataSigner: relayKey) == nil)
  }

  @Test func storesAtMostTenThousandMembersButCountsThemAll() throws {
    let members = (0..<10_050).map { _ in randomHex() }
    _ = try store(metadata("Huge"), try roster(members + members.prefix(10)))
    #expect(try storedCount() == 10_050)
    let stored = try cache.lookupMembers(account: account, relay: testRelay, channelID: channel)
    #expect(stored == Array(members.prefix(10_000)))
    let late = try cache.lookupMembership(
      account: account, relay: testRelay, channelID: channel, member: members[10_040], now: testNow)
    #expect(late?.value.isListed == nil)
    // A sender outside the stored 10 000 counts as a member: total − 1 (§4).
    #expect(late?.value.recipientCount(metadataSigner: relayKey) == 10_049)
  }

  @Test func refusesARosterWithOneMalformedMember() throws {
    let error = try #require(throws: CacheError.self) {
      try roster([randomHex(), String(repeating: "A", count: 64), randomHex()])
    }
    #expect(error.code == .invalidField)
    #expect(error.field == "tags.p")
  }

  @Test func refusesHalvesOfDifferentSigners() throws {
    let error = try #require(throws: CacheError.self) {
      try store(metadata("X"), try roster([randomHex()], signer: randomHex()))
    }
    #expect(error.field == "pubkey")
    #expect(try storedName() == nil)
  }
}

@Suite struct SnapshotTests {
  @Test func readsProfileChannelAndMembershipTogether() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path())
    let account = randomHex()
    let sender = randomHex()
    let relayKey = randomHex()
    _ = try cache.storeProfiles(
      [profile(sender, name: "Dora")], account: account, relay: testRelay, now: testNow)
    _ = try cache.storeChannel(
      metadata: ChannelMetadata(
        channelID: "room", name: "Room", type: .stream, signer: relayKey, eventID: randomHex(), createdAt: 1),
      roster: try Roster(
        channelID: "room", memberPubkeys: [sender, randomHex(), randomHex()], signer: relayKey,
        eventID: randomHex(),
        createdAt: 1),
      account: account, relay: testRelay, now: testNow - 4000)
    let snapshot = try cache.lookupSnapshot(
      account: account, relay: testRelay, sender: sender, channelID: "room", now: testNow)
    #expect(snapshot.profile?.value.displayName == "Dora")
    #expect(snapshot.profile?.isFresh == true)
    #expect(snapshot.channel?.value.name == "Room")
    #expect(snapshot.channel?.isFresh == false)
    #expect(snapshot.membership?.value.isListed == true)
    #expect(snapshot.recipientCount == 2)
    let withoutChannel = try cache.lookupSnapshot(
      account: account, relay: testRelay, sender: sender, channelID: nil, now: testNow)
    #expect(withoutChannel.channel == nil)
    #expect(withoutChannel.recipientCount == nil)
    let otherAccount = try cache.lookupSnapshot(
      account: randomHex(), relay: testRelay, sender: sender, channelID: "room", now: testNow)
    #expect(otherAccount == EnrichmentSnapshot(profile: nil, channel: nil, membership: nil))
  }
}
