internal import CSQLite
import Foundation
import NostrEvent
import NostrPushTestSupport
import Testing

@testable import EnrichmentCache

/// A second raw connection holding the write lock (`BEGIN IMMEDIATE`) until released.
final class WriteLockHolder: @unchecked Sendable {
  private var db: OpaquePointer?

  init(path: String) throws {
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
      sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK
    else { throw CacheError(code: .storage, message: "cannot take the write lock") }
  }

  func release() {
    lock.lock()
    defer { lock.unlock() }
    guard db != nil else { return }
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    sqlite3_close_v2(db)
    db = nil
  }

  private let lock = NSLock()

  deinit { if db != nil { release() } }
}

@Suite struct CacheImporterTests {
  let folder: TemporaryFolder
  let cache: EnrichmentCache
  let account = randomHex()
  let relayKey = EventFactory()
  /// The standard schedule at 1/100: the same five retries in 77.5 ms, for batches meant to fail.
  let fastSchedule = RetrySchedule.standard.scaled(by: 0.01)
  /// Two quick retries, then pauses long enough that a batch outlasts any test holding the lock;
  /// tests end a pause with `interruptPause()` after releasing the lock, so nothing here depends
  /// on how fast a loaded machine runs.
  let holdingSchedule = RetrySchedule(delays: [
    .milliseconds(10), .milliseconds(10), .seconds(600), .seconds(600), .seconds(600),
  ])

  /// Waits until `condition` holds (recording a failure after 30 s).
  func until(_ condition: () -> Bool) async throws {
    #expect(await Polling.eventually(within: .seconds(30), every: .milliseconds(2), condition))
  }

  init() throws {
    folder = try TemporaryFolder()
    cache = try EnrichmentCache(path: folder.path(), busyTimeout: .milliseconds(5))
  }

  func profileBatch(
    _ senders: [EventFactory], account: String? = nil, name: String = "n", createdAt: Int64 = 100
  )
    throws -> ImportBatch
  {
    ImportBatch(
      account: account ?? self.account, relay: testRelay,
      profiles: try senders.map { try $0.profile(["name": name], createdAt: createdAt) })
  }

  func name(of sender: EventFactory, account: String? = nil) throws -> String? {
    try cache.lookupProfile(
      account: account ?? self.account, relay: testRelay, pubkey: sender.pubkey, now: testNow)?
      .value.displayName
  }

  @Test func theStandardScheduleIsFiveRetriesOverSevenPointSevenFiveSeconds() {
    #expect(
      RetrySchedule.standard.delays == [
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4),
      ])
    #expect(RetrySchedule.standard.total == .milliseconds(7750))
    #expect(fastSchedule.delays.count == 5)
    #expect(fastSchedule.total == .microseconds(77_500))
  }

  /// The app imports under one spelling of the relay and the extension looks up another: both
  /// are one `RelayOrigin`, so the extension finds what the app wrote.
  @Test func importsUnderOneSpellingAndIsFoundUnderAnother() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    let sender = EventFactory()
    let ticket = try importer.enqueue(
      ImportBatch(
        account: account, relay: try RelayOrigin("wss://Relay.Example:443"),
        profiles: [try sender.profile(["name": "Dana"])]))
    _ = try await importer.wait(for: ticket, timeout: .seconds(60))
    let found = try cache.lookupProfile(
      account: account, relay: try RelayOrigin("https://relay.example"), pubkey: sender.pubkey, now: testNow)
    #expect(found?.value.displayName == "Dana")
  }

  @Test func verifiesAndWritesProfilesAndChannelsInTheBackground() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    let senders = (0..<4).map { _ in EventFactory() }
    var profiles = try senders.map { try $0.profile(["name": "sender"]) }
    profiles.append(try tampered(try EventFactory().profile(["name": "forged"])))
    let channels = try (0..<4).map { index in
      ChannelEvents(
        metadata: try relayKey.metadata("c\(index)", name: "Channel \(index)"),
        membership: try relayKey.membership("c\(index)", members: [senders[0].pubkey, randomHex()]))
    }
    let impostor = ChannelEvents(metadata: try EventFactory().metadata("c9", name: "Fake"), membership: nil)
    let ticket = try importer.enqueue(
      ImportBatch(
        account: account, relay: testRelay, relayKey: relayKey.pubkey, profiles: profiles,
        channels: channels + [impostor]))
    let result = try await importer.wait(for: ticket, timeout: .seconds(60))
    #expect(result.failure == nil)
    #expect(result.written == 4 + 8)
    #expect(result.rejected == 2)
    #expect(try name(of: senders[3]) == "sender")
    let channel = try cache.lookupChannel(account: account, relay: testRelay, channelID: "c2", now: testNow)
    #expect(channel?.value.name == "Channel 2")
    #expect(
      try cache.lookupMembership(account: account, relay: testRelay, channelID: "c2", now: testNow)?.value
        .count == 2)
    #expect(try cache.lookupChannel(account: account, relay: testRelay, channelID: "c9", now: testNow) == nil)
  }

  @Test func writesLargeBatchesInChunksInOrder() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    let senders = (0..<600).map { _ in EventFactory() }
    let ticket = try importer.enqueue(try profileBatch(senders))
    let result = try await importer.wait(for: ticket, timeout: .seconds(60))
    #expect(result.written == 600)
    #expect(try cache.stats().profiles == 600)
  }

  @Test func writesTwoHundredFiftySixProfilesPerTransaction() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    #expect(
      rawExecute(
        folder.path(),
        "CREATE TRIGGER boom BEFORE INSERT ON profiles WHEN NEW.display_name = 'boom' "
          + "BEGIN SELECT RAISE(ABORT, 'boom'); END") == SQLITE_OK)
    var profiles = try (0..<300).map { _ in try EventFactory().profile(["name": "fine"]) }
    profiles[280] = try EventFactory().profile(["name": "boom"])
    let ticket = try importer.enqueue(ImportBatch(account: account, relay: testRelay, profiles: profiles))
    let result = try await importer.wait(for: ticket, timeout: .seconds(60))
    #expect(result.failure?.chunk == 1)
    #expect(result.failure?.attempts == 1)
    #expect(result.written == 256)
    #expect(try cache.stats().profiles == 256)
  }

  @Test func writesFiveHundredTwelveChannelPairsPerTransaction() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    #expect(
      rawExecute(
        folder.path(),
        "CREATE TRIGGER boom BEFORE INSERT ON channels WHEN NEW.name = 'boom' "
          + "BEGIN SELECT RAISE(ABORT, 'boom'); END") == SQLITE_OK)
    let member = randomHex()
    let pairs = try (0..<520).map { index in
      ChannelEvents(
        metadata: try relayKey.metadata("c\(index)", name: index == 515 ? "boom" : "fine"),
        membership: try relayKey.membership("c\(index)", members: [member]))
    }
    let ticket = try importer.enqueue(
      ImportBatch(
        account: account, relay: testRelay, relayKey: relayKey.pubkey,
        profiles: [try EventFactory().profile([:])],
        channels: pairs))
    let result = try await importer.wait(for: ticket, timeout: .seconds(60))
    #expect(result.failure?.chunk == 2)
    #expect(try cache.stats().profiles == 1)
    #expect(try cache.stats().channels == 512)
    #expect(try cache.stats().memberships == 512)
  }

  @Test func retriesABusyChunkInPlaceAndKeepsTheQueueOrder() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: holdingSchedule)
    let first = EventFactory()
    let second = EventFactory()
    let lock = try WriteLockHolder(path: folder.path())
    let firstTicket = try importer.enqueue(try profileBatch([first], name: "first"))
    let secondTicket = try importer.enqueue(try profileBatch([second], name: "second"))
    // Three attempts failed; the worker is in its first long pause, the second batch still waits.
    try await until { importer.currentRetries == 3 }
    #expect(importer.pendingCount == 1)
    #expect(try name(of: first) == nil)
    lock.release()
    importer.interruptPause()
    let firstResult = try await importer.wait(for: firstTicket, timeout: .seconds(60))
    let secondResult = try await importer.wait(for: secondTicket, timeout: .seconds(60))
    #expect(firstResult.failure == nil)
    #expect(firstResult.retries == 3)
    #expect(secondResult.failure == nil)
    #expect(secondResult.retries == 0)
    #expect(firstResult.completionIndex == 0)
    #expect(secondResult.completionIndex == 1)
    #expect(try name(of: first) == "first")
    #expect(try name(of: second) == "second")
    #expect(importer.failures().isEmpty)
  }

  @Test func reportsATerminalFailureThatLaterSuccessesDoNotHide() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    let lock = try WriteLockHolder(path: folder.path())
    let doomed = try importer.enqueue(try profileBatch([EventFactory()]))
    let failed = try await importer.wait(for: doomed, timeout: .seconds(60))
    let failure = try #require(failed.failure)
    #expect(failure.error.code == .busy)
    #expect(failure.attempts == 6)
    #expect(failure.chunk == 0)
    #expect(failure.account == account)
    #expect(failed.retries == 5)
    lock.release()
    let later = try importer.enqueue(try profileBatch([EventFactory()]))
    #expect(try await importer.wait(for: later, timeout: .seconds(60)).failure == nil)
    #expect(importer.failures().map(\.batchID) == [failed.batchID])
    #expect(importer.failures().first?.error.code == .busy)
  }

  @Test func failsAtOnceOnAnErrorThatIsNotTransient() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    #expect(rawExecute(folder.path(), "DROP TABLE profiles") == SQLITE_OK)
    let ticket = try importer.enqueue(try profileBatch([EventFactory()]))
    let result = try await importer.wait(for: ticket, timeout: .seconds(60))
    #expect(result.failure?.attempts == 1)
    #expect(result.failure?.error.code == .storage)
    #expect(result.retries == 0)
  }

  @Test func coalescesRequestsForTheSameProfilesWhileTheWorkerIsBusy() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: holdingSchedule)
    let sender = EventFactory()
    let other = EventFactory()
    let lock = try WriteLockHolder(path: folder.path())
    let busy = try importer.enqueue(try profileBatch([EventFactory()]))
    try await until { importer.currentRetries == 3 }
    let older = try importer.enqueue(try profileBatch([sender, other], name: "older", createdAt: 100))
    let newer = try importer.enqueue(try profileBatch([sender], name: "newer", createdAt: 200))
    let again = try importer.enqueue(try profileBatch([sender], name: "stale", createdAt: 50))
    #expect(newer.batchIDs == older.batchIDs)
    #expect(again.batchIDs == older.batchIDs)
    #expect(importer.pendingCount == 1)
    lock.release()
    importer.interruptPause()
    _ = try await importer.wait(for: busy, timeout: .seconds(60))
    let result = try await importer.wait(for: newer, timeout: .seconds(60))
    #expect(result.coalesced == 2)
    #expect(result.written == 2)
    #expect(try name(of: sender) == "newer")
    #expect(try name(of: other) == "older")
  }

  @Test func holdsAtMostEightPendingBatches() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: holdingSchedule)
    let lock = try WriteLockHolder(path: folder.path())
    _ = try importer.enqueue(try profileBatch([EventFactory()]))
    try await until { importer.pendingCount == 0 }
    let senders = (0..<CacheImporter.maxPendingBatches).map { _ in EventFactory() }
    var tickets: [ImportTicket] = []
    for sender in senders {
      tickets.append(try importer.enqueue(try profileBatch([sender], name: "queued", createdAt: 100)))
    }
    // A request that needs a ninth batch is refused whole: its coalescible profile is not merged.
    let error = try #require(throws: CacheError.self) {
      try importer.enqueue(
        ImportBatch(
          account: account, relay: testRelay,
          profiles: [
            try senders[0].profile(["name": "refused"], createdAt: 200),
            try EventFactory().profile(["name": "x"]),
          ]))
    }
    #expect(error.code == .queueFull)
    #expect(importer.pendingCount == 8)
    // A request entirely coalescible into waiting batches needs no slot and is accepted.
    let merged = try importer.enqueue(try profileBatch([senders[7]], name: "merged", createdAt: 300))
    #expect(merged.batchIDs == tickets[7].batchIDs)
    lock.release()
    importer.interruptPause()
    let first = try await importer.wait(for: tickets[0], timeout: .seconds(60))
    let last = try await importer.wait(for: tickets[7], timeout: .seconds(60))
    #expect(first.failure == nil)
    #expect(first.coalesced == 0)
    #expect(last.coalesced == 1)
    #expect(try name(of: senders[0]) == "queued")
    #expect(try name(of: senders[7]) == "merged")
  }

  @Test func keepsEachBatchsOriginalAccount() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: holdingSchedule)
    let switchedTo = randomHex()
    let sender = EventFactory()
    let lock = try WriteLockHolder(path: folder.path())
    let before = try importer.enqueue(try profileBatch([sender], name: "for the first account"))
    let after = try importer.enqueue(try profileBatch([EventFactory()], account: switchedTo))
    lock.release()
    importer.interruptPause()
    #expect(try await importer.wait(for: before, timeout: .seconds(60)).account == account)
    #expect(try await importer.wait(for: after, timeout: .seconds(60)).account == switchedTo)
    #expect(try name(of: sender) == "for the first account")
    #expect(try name(of: sender, account: switchedTo) == nil)
  }

  @Test func discardsAnImportForARemovedAccount() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    try cache.removeAccount(account, now: testNow)
    let sender = EventFactory()
    let result = try await importer.wait(
      for: try importer.enqueue(try profileBatch([sender])), timeout: .seconds(60))
    #expect(result.failure == nil)
    #expect(result.written == 0)
    #expect(try name(of: sender) == nil)
  }

  @Test func stopsWaitingAtTheTimeout() async throws {
    let importer = CacheImporter(cache: cache, retrySchedule: holdingSchedule)
    let lock = try WriteLockHolder(path: folder.path())
    let ticket = try importer.enqueue(try profileBatch([EventFactory()]))
    let error = await #expect(throws: CacheError.self) {
      try await importer.wait(for: ticket, timeout: .milliseconds(50))
    }
    #expect(error?.code == .timeout)
    lock.release()
    importer.interruptPause()
    #expect(try await importer.wait(for: ticket, timeout: .seconds(60)).failure == nil)
  }

  @Test func returnsFromEnqueueBeforeVerifying() throws {
    let importer = CacheImporter(cache: cache, retrySchedule: fastSchedule)
    let lock = try WriteLockHolder(path: folder.path())
    let ticket = try importer.enqueue(try profileBatch([EventFactory()]))
    #expect(ticket.batchIDs.count == 1)
    #expect(try cache.stats().profiles == 0)
    lock.release()
  }
}
