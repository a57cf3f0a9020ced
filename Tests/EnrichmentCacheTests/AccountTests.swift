import Foundation
import Testing

@testable import EnrichmentCache

@Suite struct AccountTests {
  let folder: TemporaryFolder
  let cache: EnrichmentCache
  let account = randomHex()
  let other = randomHex()
  let sender = randomHex()
  let relayKey = randomHex()

  init() throws {
    folder = try TemporaryFolder()
    cache = try EnrichmentCache(path: folder.path())
  }

  func fill(_ account: String) throws {
    _ = try cache.storeProfiles(
      [profile(sender, picture: "https://images.example/a.png")], account: account, relay: testRelay,
      now: testNow)
    _ = try cache.storeAvatar(
      account: account, relay: testRelay, pubkey: sender, url: "https://images.example/a.png",
      bytes: pngBytes(),
      etag: nil, lastModified: nil, now: testNow)
    _ = try cache.storeChannel(
      metadata: ChannelMetadata(
        channelID: "c", name: "C", type: .forum, signer: relayKey, eventID: randomHex(), createdAt: 1),
      roster: try Roster(
        channelID: "c", memberPubkeys: [sender], signer: relayKey, eventID: randomHex(), createdAt: 1),
      account: account, relay: testRelay, now: testNow)
    #expect(try cache.claimDelivery(eventID: randomHex(), account: account, relay: testRelay, now: testNow))
  }

  @Test func removesEveryRowOfTheAccountAndNoOther() throws {
    try fill(account)
    try fill(other)
    #expect(try cache.removeAccount(account, now: testNow) == 5)
    #expect(try cache.isAccountRemoved(account))
    #expect(try !cache.isAccountRemoved(other))
    #expect(try cache.lookupProfile(account: account, relay: testRelay, pubkey: sender, now: testNow) == nil)
    #expect(try cache.lookupChannel(account: account, relay: testRelay, channelID: "c", now: testNow) == nil)
    #expect(try cache.lookupAvatar(account: account, relay: testRelay, pubkey: sender, now: testNow) == nil)
    #expect(try cache.lookupProfile(account: other, relay: testRelay, pubkey: sender, now: testNow) != nil)
    #expect(try cache.lookupAvatar(account: other, relay: testRelay, pubkey: sender, now: testNow) != nil)
    let stats = try cache.stats()
    let counts: [Int] = [stats.profiles, stats.channels, stats.memberships, stats.avatars, stats.deliveries]
    #expect(counts == [1, 1, 1, 1, 1])
  }

  @Test func discardsALateWriteForARemovedAccount() throws {
    try cache.removeAccount(account, now: testNow)
    let outcome = try cache.storeProfiles(
      [profile(sender)], account: account, relay: testRelay, now: testNow + 1)
    #expect(outcome == [.discardedAccountRemoved])
    let channel = try cache.storeChannel(
      metadata: ChannelMetadata(
        channelID: "c", name: "C", type: nil, signer: relayKey, eventID: randomHex(), createdAt: 1),
      roster: nil, account: account, relay: testRelay, now: testNow)
    #expect(channel.metadata == .discardedAccountRemoved)
    #expect(try cache.lookupProfile(account: account, relay: testRelay, pubkey: sender, now: testNow) == nil)
    #expect(try cache.stats().profiles == 0)
    let error = try #require(throws: CacheError.self) {
      try cache.claimDelivery(eventID: randomHex(), account: account, relay: testRelay, now: testNow)
    }
    #expect(error.code == .accountRemoved)
  }

  @Test func onlyAnExplicitAddClearsTheTombstone() throws {
    try cache.removeAccount(account, now: testNow)
    try cache.addAccount(account, now: testNow + 1)
    #expect(try !cache.isAccountRemoved(account))
    #expect(
      try cache.storeProfiles([profile(sender)], account: account, relay: testRelay, now: testNow) == [
        .stored
      ])
  }

  @Test func registersOnFirstUseButNeverRevivesARemovedAccount() throws {
    #expect(try cache.registerAccount(account, now: testNow))
    #expect(try cache.registerAccount(account, now: testNow + 1))
    try cache.removeAccount(account, now: testNow + 2)
    #expect(try !cache.registerAccount(account, now: testNow + 3))
    #expect(try cache.isAccountRemoved(account))
  }

  @Test func keepsTheTombstoneAcrossConnections() throws {
    try cache.removeAccount(account, now: testNow)
    let second = try EnrichmentCache(path: folder.path())
    #expect(try second.isAccountRemoved(account))
    #expect(
      try second.storeProfiles([profile(sender)], account: account, relay: testRelay, now: testNow) == [
        .discardedAccountRemoved
      ])
  }
}

@Suite struct DeliveryTests {
  @Test func claimsAnEventOnce() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path())
    let second = try EnrichmentCache(path: folder.path())
    let account = randomHex()
    let event = randomHex()
    #expect(try cache.claimDelivery(eventID: event, account: account, relay: testRelay, now: testNow))
    #expect(try !second.claimDelivery(eventID: event, account: account, relay: testRelay, now: testNow + 5))
    #expect(
      try second.claimDelivery(eventID: randomHex(), account: account, relay: testRelay, now: testNow + 5))
  }

  @Test func prunesPresentedClaimsAfterTheLongestWindowAndADay() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path())
    let account = randomHex()
    let event = randomHex()
    #expect(try cache.claimDelivery(eventID: event, account: account, relay: testRelay, now: testNow))
    #expect(try cache.markPresented([event], now: testNow + 1) == 1)
    #expect(EnrichmentCache.deliveryRetention == 15 * 24 * 3600)
    let almost = testNow + EnrichmentCache.deliveryRetention
    #expect(try !cache.claimDelivery(eventID: event, account: account, relay: testRelay, now: almost))
    #expect(try cache.stats().deliveries == 1)
    #expect(
      try cache.claimDelivery(eventID: randomHex(), account: account, relay: testRelay, now: almost + 1))
    #expect(try cache.stats().deliveries == 1)
  }

  @Test func takesAnUnpresentedClaimAgainOnlyOnceItExpired() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path())
    let account = randomHex()
    let other = randomHex()
    let event = randomHex()
    #expect(try cache.claimDeliveries([event], account: account, relay: testRelay, now: testNow) == [event])
    let expiry = testNow + EnrichmentCache.claimLifetime
    // Claims are per message id in the file: another account does not claim it again.
    #expect(try cache.claimDeliveries([event], account: other, relay: testRelay, now: expiry - 1) == [])
    #expect(try cache.claimDeliveries([event], account: other, relay: testRelay, now: expiry) == [event])
    #expect(try cache.markPresented([event], now: expiry + 1) == 1)
    #expect(try cache.markPresented([event], now: expiry + 2) == 0)
    #expect(try cache.claimDeliveries([event], account: account, relay: testRelay, now: expiry + 3600) == [])
  }

  @Test func claimsOnlyTheNewIDsOfABatchInTheirOrder() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path())
    let account = randomHex()
    let ids = (0..<3).map { _ in randomHex() }
    #expect(try cache.claimDeliveries([ids[1]], account: account, relay: testRelay, now: testNow) == [ids[1]])
    #expect(
      try cache.claimDeliveries(ids, account: account, relay: testRelay, now: testNow) == [ids[0], ids[2]])
    var asked: [String] = []
    #expect(throws: CacheError(code: .cancelled, field: "id", message: "")) {
      try cache.claimDeliveries([randomHex()], account: account, relay: testRelay, now: testNow) { ids in
        asked = ids
        return false
      }
    }
    #expect(asked.count == 1)
    #expect(try cache.stats().deliveries == 3)
  }

  @Test func manyConcurrentClaimsOfOneEventSucceedOnce() async throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    let event = randomHex()
    let path = folder.path()
    _ = try EnrichmentCache(path: path)
    let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask {
          // Eight connections contend for the claims file's lock at once; on a loaded machine the
          // default busy timeout ran out (a fresh-clone CI run): this test is about one winner.
          let cache = try EnrichmentCache(path: path, busyTimeout: .seconds(20))
          return try cache.claimDelivery(eventID: event, account: account, relay: testRelay, now: testNow)
        }
      }
      return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(wins == 1)
  }
}

@Suite struct SizeBoundTests {
  @Test func evictsAvatarsLeastRecentlyUsedFirst() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path(), maxBytes: 1024 * 1024)
    let account = randomHex()
    let senders = (0..<5).map { _ in randomHex() }
    for (index, sender) in senders.enumerated() {
      let url = "https://images.example/\(index).png"
      _ = try cache.storeProfiles(
        [profile(sender, picture: url)], account: account, relay: testRelay, now: testNow)
      let now = testNow + Int64(index) * 100
      _ = try cache.storeAvatar(
        account: account, relay: testRelay, pubkey: sender, url: url, bytes: pngBytes(300 * 1024), etag: nil,
        lastModified: nil, now: now)
      if index == 2 {
        // Use the first avatar again, so the second is now the least recently used.
        #expect(
          try cache.lookupAvatar(account: account, relay: testRelay, pubkey: senders[0], now: now + 70) != nil
        )
      }
    }
    let present = try senders.map { sender in
      try cache.lookupAvatar(account: account, relay: testRelay, pubkey: sender, now: testNow + 1000) != nil
    }
    #expect(present == [true, false, false, true, true])
    #expect(try cache.stats().profiles == 5)
    #expect(try CacheEviction.usedBytes(cache) <= 1024 * 1024)
  }

  @Test func evictsTheOldestProfilesWhenNoAvatarIsLeft() throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path(), maxBytes: 256 * 1024)
    let account = randomHex()
    let first = randomHex()
    _ = try cache.storeProfiles([profile(first)], account: account, relay: testRelay, now: testNow)
    for batch in 0..<20 {
      let records = (0..<200).map { _ in profile(randomHex(), name: String(repeating: "n", count: 100)) }
      _ = try cache.storeProfiles(
        records, account: account, relay: testRelay, now: testNow + 1 + Int64(batch))
    }
    #expect(try cache.lookupProfile(account: account, relay: testRelay, pubkey: first, now: testNow) == nil)
    let stats = try cache.stats()
    #expect(stats.profiles > 100)
    #expect(stats.profiles < 4001)
    #expect(try CacheEviction.usedBytes(cache) <= 256 * 1024)
  }
}

extension CacheEviction {
  /// The used bytes of an open cache, for tests.
  static func usedBytes(_ cache: EnrichmentCache) throws -> Int64 {
    try cache.locked { db throws(CacheError) in try usedBytes(db) }
  }
}
