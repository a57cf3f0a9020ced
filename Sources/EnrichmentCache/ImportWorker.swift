import Foundation
import NostrEvent

/// The queue and its worker thread.
///
/// `@unchecked Sendable`: every mutable field is read and written only while `condition` is
/// locked; the cache and schedule are immutable and `EnrichmentCache` is itself thread-safe.
final class ImportWorker: @unchecked Sendable {
  private struct Pending {
    var id: UInt64
    var batch: ImportBatch
    var profileIndex: [String: Int]
    var coalesced: Int
  }

  private typealias Waiter = CheckedContinuation<Result<ImportResult, CacheError>, Never>

  private let cache: EnrichmentCache
  private let schedule: RetrySchedule
  private let condition = NSCondition()
  private var pending: [Pending] = []
  private var nextID: UInt64 = 1
  private var nextWaiter: UInt64 = 1
  private var completed = 0
  private var stopping = false
  private var pauseInterrupted = false
  private var retriesInProgress = 0
  private var results: [UInt64: ImportResult] = [:]
  private var resultOrder: [UInt64] = []
  private var failureLog: [ImportFailure] = []
  private var waiters: [UInt64: [UInt64: Waiter]] = [:]

  init(cache: EnrichmentCache, schedule: RetrySchedule) {
    self.cache = cache
    self.schedule = schedule
  }

  func start() {
    let thread = Thread { [self] in
      Self.lowerPriority()
      run()
    }
    thread.name = "EnrichmentCache.CacheImporter"
    thread.qualityOfService = .utility
    thread.start()
  }

  /// Makes the worker yield to the app's threads: `.utility` QoS on Apple platforms; on Linux,
  /// where QoS is not mapped to the scheduler, a nice value of `workerNice` for this thread (the
  /// nice value is per thread on Linux, and `who` 0 names the calling one).
  private static func lowerPriority() {
    #if os(Linux)
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, workerNice)
    #endif
  }

  /// The Linux nice value of the worker thread (0 is normal, 19 the lowest priority).
  static let workerNice: Int32 = 10

  /// Lets the worker finish what is queued, then end.
  func stop() {
    condition.lock()
    stopping = true
    condition.signal()
    condition.unlock()
  }

  var pendingCount: Int {
    condition.lock()
    defer { condition.unlock() }
    return pending.count
  }

  var currentRetries: Int {
    condition.lock()
    defer { condition.unlock() }
    return retriesInProgress
  }

  func interruptPause() {
    condition.lock()
    pauseInterrupted = true
    condition.signal()
    condition.unlock()
  }

  func failures() -> [ImportFailure] {
    condition.lock()
    defer { condition.unlock() }
    return failureLog
  }

  func enqueue(_ batch: ImportBatch) throws(CacheError) -> ImportTicket {
    condition.lock()
    defer { condition.unlock() }
    // Plan first, so that a refused request changes nothing.
    var matches: [(event: Event, slot: Int, index: Int)] = []
    var remaining: [Event] = []
    for event in batch.profiles {
      if let (slot, index) = pendingProfile(event.pubkey, account: batch.account, relay: batch.relay) {
        matches.append((event, slot, index))
      } else {
        remaining.append(event)
      }
    }
    let needsBatch = !remaining.isEmpty || !batch.channels.isEmpty || matches.isEmpty
    guard !needsBatch || pending.count < CacheImporter.maxPendingBatches else {
      throw CacheError(
        code: .queueFull, message: "\(CacheImporter.maxPendingBatches) import batches are already waiting")
    }
    var mergedInto: [UInt64] = []
    for match in matches {
      let waiting = pending[match.slot].batch.profiles[match.index]
      if EnrichmentCache.replaces(match.event.createdAt, match.event.id, waiting.createdAt, waiting.id) {
        pending[match.slot].batch.profiles[match.index] = match.event
      }
      pending[match.slot].coalesced += 1
      if !mergedInto.contains(pending[match.slot].id) { mergedInto.append(pending[match.slot].id) }
    }
    guard needsBatch else { return ImportTicket(batchIDs: mergedInto) }
    var newBatch = batch
    newBatch.profiles = remaining
    let id = nextID
    nextID += 1
    var index: [String: Int] = [:]
    for (position, event) in remaining.enumerated() where index[event.pubkey] == nil {
      index[event.pubkey] = position
    }
    pending.append(Pending(id: id, batch: newBatch, profileIndex: index, coalesced: 0))
    condition.signal()
    return ImportTicket(batchIDs: [id] + mergedInto)
  }

  private func pendingProfile(_ pubkey: String, account: String, relay: RelayOrigin) -> (Int, Int)? {
    for slot in pending.indices
    where pending[slot].batch.account == account && pending[slot].batch.relay == relay {
      if let index = pending[slot].profileIndex[pubkey] { return (slot, index) }
    }
    return nil
  }

  /// The batch's result once it is written, by `deadline`. The package's deadline helper ends
  /// the wait; the deadline (or the caller's cancellation) cancels it, which removes its waiter,
  /// so an abandoned wait leaves nothing behind.
  func result(of id: UInt64, deadline: ContinuousClock.Instant) async throws(CacheError) -> ImportResult {
    if let done = finished(id) { return done }
    let waiterID = makeWaiterID()
    let outcome = await DeadlineRace.value(by: deadline, cancelsOperation: true) { [self] in
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: Waiter) in
          register(continuation, for: id, waiterID: waiterID)
        }
      } onCancel: {
        resume(id, waiterID, with: .failure(CacheError(code: .cancelled, message: "the wait was cancelled")))
      }
    }
    guard let outcome else {
      if Task.isCancelled { throw CacheError(code: .cancelled, message: "the wait was cancelled") }
      throw CacheError(code: .timeout, message: "the import did not finish in time")
    }
    return try outcome.get()
  }

  private func finished(_ id: UInt64) -> ImportResult? {
    condition.lock()
    defer { condition.unlock() }
    return results[id]
  }

  private func makeWaiterID() -> UInt64 {
    condition.lock()
    defer { condition.unlock() }
    nextWaiter += 1
    return nextWaiter
  }

  /// Resumes at once when the batch is done or the task cancelled; otherwise parks the
  /// continuation until the batch finishes or the wait is cancelled.
  private func register(_ continuation: Waiter, for id: UInt64, waiterID: UInt64) {
    condition.lock()
    if let done = results[id] {
      condition.unlock()
      continuation.resume(returning: .success(done))
      return
    }
    if Task.isCancelled {
      condition.unlock()
      continuation.resume(
        returning: .failure(CacheError(code: .cancelled, message: "the wait was cancelled")))
      return
    }
    waiters[id, default: [:]][waiterID] = continuation
    condition.unlock()
  }

  private func resume(_ id: UInt64, _ waiterID: UInt64, with outcome: Result<ImportResult, CacheError>) {
    condition.lock()
    let waiter = waiters[id]?.removeValue(forKey: waiterID)
    condition.unlock()
    waiter?.resume(returning: outcome)
  }

  private func run() {
    while true {
      condition.lock()
      while pending.isEmpty && !stopping { condition.wait() }
      guard !pending.isEmpty else {
        condition.unlock()
        return
      }
      let entry = pending.removeFirst()
      retriesInProgress = 0
      condition.unlock()

      var result = write(entry)

      condition.lock()
      result.completionIndex = completed
      completed += 1
      results[entry.id] = result
      resultOrder.append(entry.id)
      if resultOrder.count > CacheImporter.keptRecords { results[resultOrder.removeFirst()] = nil }
      if let failure = result.failure {
        failureLog.append(failure)
        if failureLog.count > CacheImporter.keptRecords { failureLog.removeFirst() }
      }
      let finished = waiters.removeValue(forKey: entry.id) ?? [:]
      condition.unlock()
      for waiter in finished.values { waiter.resume(returning: .success(result)) }
    }
  }

  /// Verifies and writes one batch, chunk by chunk, retrying transient failures in place.
  private func write(_ entry: Pending) -> ImportResult {
    let batch = entry.batch
    var result = ImportResult(
      batchID: entry.id, account: batch.account, written: 0, rejected: 0, coalesced: entry.coalesced,
      retries: 0,
      failure: nil, completionIndex: 0)
    let (profiles, pairs, rejected) = Self.verify(batch)
    result.rejected = rejected
    var chunks: [Chunk] = []
    for start in stride(from: 0, to: profiles.count, by: CacheImporter.profilesPerTransaction) {
      chunks.append(
        .profiles(Array(profiles[start..<min(profiles.count, start + CacheImporter.profilesPerTransaction)])))
    }
    for start in stride(from: 0, to: pairs.count, by: CacheImporter.channelPairsPerTransaction) {
      chunks.append(
        .channels(Array(pairs[start..<min(pairs.count, start + CacheImporter.channelPairsPerTransaction)])))
    }
    for (index, chunk) in chunks.enumerated() {
      var attempts = 0
      while true {
        attempts += 1
        do {
          result.written += try write(chunk, batch)
          break
        } catch {
          if error.isTransient && attempts <= schedule.delays.count {
            result.retries += 1
            setRetriesInProgress(result.retries)
            pause(schedule.delays[attempts - 1])
            continue
          }
          result.failure = ImportFailure(
            batchID: entry.id, account: batch.account, chunk: index, attempts: attempts, error: error)
          return result
        }
      }
    }
    return result
  }

  /// The records of one transaction.
  private enum Chunk {
    case profiles([Profile])
    case channels([PairRecord])
  }

  /// Writes one chunk in one transaction; returns how many records were stored or renewed.
  private func write(_ chunk: Chunk, _ batch: ImportBatch) throws(CacheError) -> Int {
    let now = cache.clock()
    switch chunk {
    case .profiles(let records):
      let outcomes = try cache.storeProfiles(records, account: batch.account, relay: batch.relay, now: now)
      return outcomes.filter { $0 == .stored || $0 == .renewed }.count
    case .channels(let records):
      let outcomes = try cache.storeChannels(
        records.map { ($0.metadata, $0.roster) }, account: batch.account, relay: batch.relay, now: now)
      return outcomes.reduce(0) { sum, outcome in
        sum + [outcome.metadata, outcome.membership].filter { $0 == .stored || $0 == .renewed }.count
      }
    }
  }

  private struct PairRecord: Sendable {
    var metadata: ChannelMetadata?
    var roster: Roster?
  }

  /// Verifies every event of the batch (in parallel for large batches) and parses the records;
  /// returns them with the number of events rejected.
  private static func verify(_ batch: ImportBatch) -> ([Profile], [PairRecord], Int) {
    var events = batch.profiles
    for pair in batch.channels {
      if let metadata = pair.metadata { events.append(metadata) }
      if let membership = pair.membership { events.append(membership) }
    }
    // Small batches are checked on this (low-priority) thread; large ones fan out over the cores.
    let valid =
      events.count < BatchVerifier.minimumChunk
      ? events.map { $0.verify().isValid } : BatchVerifier.verify(events).map(\.isValid)
    var rejected = 0
    var profiles: [Profile] = []
    for (event, isValid) in zip(batch.profiles, valid) {
      guard isValid, event.kind == Profile.kind, let record = try? Profile(event: event)
      else {
        rejected += 1
        continue
      }
      profiles.append(record)
    }
    var position = batch.profiles.count
    // One half of a pair: nil unless it verified, has `kind`, is signed by the relay and parses.
    func half<Record>(
      _ event: Event, kind: Int, _ parse: (Event) throws(CacheError) -> Record
    ) -> Record? {
      defer { position += 1 }
      guard valid[position], event.kind == kind, event.pubkey == batch.relayKey else { return nil }
      return try? parse(event)
    }
    var pairs: [PairRecord] = []
    for pair in batch.channels {
      var record = PairRecord()
      var usable = true
      if let metadata = pair.metadata {
        record.metadata = half(metadata, kind: EventRecords.channelMetadataKind, EventRecords.channelMetadata)
        usable = usable && record.metadata != nil
      }
      if let membership = pair.membership {
        record.roster = half(membership, kind: EventRecords.membershipKind, EventRecords.roster)
        usable = usable && record.roster != nil
      }
      if let metadata = record.metadata, let roster = record.roster, metadata.channelID != roster.channelID {
        usable = false
      }
      guard usable, record.metadata != nil || record.roster != nil else {
        rejected += 1
        continue
      }
      pairs.append(record)
    }
    return (profiles, pairs, rejected)
  }

  private func setRetriesInProgress(_ retries: Int) {
    condition.lock()
    retriesInProgress = retries
    condition.unlock()
  }

  /// Waits `delay` on the monotonic clock (a wall-clock change neither stretches nor cuts it),
  /// or until `interruptPause()`.
  private func pause(_ delay: Duration) {
    let end = ContinuousClock.now + delay
    condition.lock()
    while !pauseInterrupted {
      let remaining = ContinuousClock.now.duration(to: end)
      guard remaining > .zero else { break }
      let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
      _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
    }
    pauseInterrupted = false
    condition.unlock()
  }
}
