import Foundation
import NostrEvent
import Testing

@testable import EnrichmentCache

@Suite struct ProfileStoreTests {
  let folder: TemporaryFolder
  let cache: EnrichmentCache
  let account = randomHex()
  let sender = randomHex()

  init() throws {
    folder = try TemporaryFolder()
    cache = try EnrichmentCache(path: folder.path())
  }

  func store(_ record: Profile, now: Int64 = testNow) throws -> StoreOutcome {
    try cache.storeProfiles([record], account: account, relay: testRelay, now: now)[0]
  }

  func lookup(now: Int64 = testNow) throws -> Cached<Profile>? {
    try cache.lookupProfile(account: account, relay: testRelay, pubkey: sender, now: now)
  }

  @Test func replacesWithALargerCreatedAt() throws {
    #expect(try store(profile(sender, name: "Old", createdAt: 100)) == .stored)
    #expect(try store(profile(sender, name: "New", createdAt: 101)) == .stored)
    #expect(try lookup()?.value.displayName == "New")
  }

  @Test func neverReplacesWithAnOlderEvent() throws {
    #expect(try store(profile(sender, name: "New", createdAt: 200)) == .stored)
    #expect(try store(profile(sender, name: "Old", createdAt: 199)) == .ignoredOlder)
    #expect(try lookup()?.value.displayName == "New")
  }

  @Test func breaksACreatedAtTieTowardsTheLowerID() throws {
    let low = String(repeating: "1", count: 64)
    let high = String(repeating: "e", count: 64)
    #expect(try store(profile(sender, name: "High", createdAt: 100, id: high)) == .stored)
    #expect(try store(profile(sender, name: "Low", createdAt: 100, id: low)) == .stored)
    #expect(try store(profile(sender, name: "High again", createdAt: 100, id: high)) == .ignoredOlder)
    #expect(try lookup()?.value.displayName == "Low")
    #expect(try lookup()?.value.eventID == low)
  }

  @Test func renewsTheFetchTimeWhenTheSameEventArrivesAgain() throws {
    let record = profile(sender, createdAt: 100)
    #expect(try store(record, now: testNow - 7200) == .stored)
    #expect(try lookup()?.isFresh == false)
    #expect(try store(record, now: testNow) == .renewed)
    #expect(try lookup()?.fetchedAt == testNow)
    #expect(try lookup()?.isFresh == true)
  }

  @Test(
    arguments: [
      (0, true), (1, true), (3599, true), (3600, false), (7200, false), (-1, false), (-3600, false),
    ] as [(Int64, Bool)])
  func judgesFreshnessByOneHour(age: Int64, fresh: Bool) throws {
    _ = try store(profile(sender), now: testNow - age)
    let found = try #require(try lookup())
    #expect(found.isFresh == fresh)
    #expect(found.value.displayName == "Alice")
  }

  @Test func keepsRecordsApartPerAccountAndRelay() throws {
    _ = try store(profile(sender, name: "Seen by account A"))
    let otherAccount = randomHex()
    let otherRelay = try RelayOrigin("wss://other.example")
    #expect(
      try cache.lookupProfile(account: otherAccount, relay: testRelay, pubkey: sender, now: testNow) == nil)
    #expect(try cache.lookupProfile(account: account, relay: otherRelay, pubkey: sender, now: testNow) == nil)
    _ = try cache.storeProfiles(
      [profile(sender, name: "Seen by account B", createdAt: 1)], account: otherAccount, relay: testRelay,
      now: testNow)
    #expect(try lookup()?.value.displayName == "Seen by account A")
  }

  @Test func sharesRecordsBetweenSpellingsOfOneRelay() throws {
    _ = try store(profile(sender, name: "Carol"))
    let spelled = try RelayOrigin("HTTPS://Relay.Example:443/")
    #expect(
      try cache.lookupProfile(account: account, relay: spelled, pubkey: sender, now: testNow)?.value
        .displayName == "Carol")
  }

  @Test func refusesAMalformedAccount() throws {
    let error = try #require(throws: CacheError.self) {
      try cache.lookupProfile(account: "ABC", relay: testRelay, pubkey: sender, now: testNow)
    }
    #expect(error.code == .invalidField)
    #expect(error.field == "account")
  }

  @Test func writesLargeBatchesInOneCall() throws {
    let records = (0..<600).map { _ in profile(randomHex()) }
    let outcomes = try cache.storeProfiles(records, account: account, relay: testRelay, now: testNow)
    #expect(outcomes.count == 600)
    #expect(outcomes.allSatisfy { $0 == .stored })
    #expect(try cache.stats().profiles == 600)
  }
}

@Suite struct ConcurrentUseTests {
  @Test func servesManyTasksThroughOneInstance() async throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path())
    let account = randomHex()
    let senders = (0..<8).map { _ in (0..<50).map { _ in randomHex() } }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (task, keys) in senders.enumerated() {
        group.addTask {
          for key in keys {
            _ = try cache.storeProfiles(
              [profile(key, name: "task \(task)")], account: account, relay: testRelay, now: testNow)
            let found = try cache.lookupProfile(account: account, relay: testRelay, pubkey: key, now: testNow)
            #expect(found?.value.displayName == "task \(task)")
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try cache.stats().profiles == 400)
  }
}
