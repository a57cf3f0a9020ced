import Foundation
import NostrEvent

/// Hands the app's already-seen profiles and channels to the cache without delaying the app:
/// `enqueue` returns at once, and a background worker verifies and writes.
///
/// Up to `maxPendingBatches` batches wait; a profile already waiting in a pending batch of the
/// same account and relay is coalesced into it (the newer event by the replacement order is kept)
/// instead of being queued twice. Batches are written in order, each under the account it was
/// enqueued for, in chunks of `profilesPerTransaction` profiles or `channelPairsPerTransaction`
/// channel refreshes. A chunk that meets a busy or locked database is retried in place after each
/// pause of the retry schedule (0.25, 0.5, 1, 2, 4 s); any other error, or a transient one after
/// the last retry, ends the batch, and the failure stays readable in `failures()` whatever
/// succeeds later. Events that do not verify are dropped and counted in `ImportResult.rejected`.
public final class CacheImporter: Sendable {
  /// The most batches waiting (not counting the one being written); beyond it `enqueue(_:)`
  /// throws `queueFull`, so a stalled cache never grows the app's memory.
  public static let maxPendingBatches = 8
  /// Profiles written per transaction.
  package static let profilesPerTransaction = 256
  /// Channel metadata/membership refreshes written per transaction.
  package static let channelPairsPerTransaction = 512
  /// Completed results and failures kept for reading (the oldest are dropped beyond it).
  package static let keptRecords = 256

  private let worker: ImportWorker

  /// Starts a worker that writes into `cache`; a chunk that meets a busy or locked database is
  /// retried after pauses of 0.25, 0.5, 1, 2 and 4 s.
  ///
  /// Create one per process and keep it for the process's lifetime: it owns the worker.
  public convenience init(cache: EnrichmentCache) {
    self.init(cache: cache, retrySchedule: .standard)
  }

  /// Starts a worker that writes into `cache`, pausing between retries per `retrySchedule` (tests
  /// and the CLI shorten it).
  package init(cache: EnrichmentCache, retrySchedule: RetrySchedule) {
    worker = ImportWorker(cache: cache, schedule: retrySchedule)
    worker.start()
  }

  deinit { worker.stop() }

  /// Queues a batch and returns at once: call it whenever the app has received profiles or
  /// channel events over its own connection, from any thread.
  ///
  /// Throws `queueFull` when `maxPendingBatches` wait already and the batch could not be
  /// coalesced entirely into them (try again later, or drop it: the extension refetches what it
  /// lacks), `invalidField` for an account that is not 64 lowercase hex.
  @discardableResult
  public func enqueue(_ batch: ImportBatch) throws(CacheError) -> ImportTicket {
    try HexKey.check(batch.account, field: "account")
    return try worker.enqueue(batch)
  }

  /// Waits until every batch of `ticket` is done and returns their combined result: the first
  /// failure if any, counts summed. An app need not wait; tests and diagnostics do.
  ///
  /// Throws `timeout` after `timeout`, `cancelled` when the task is.
  public func wait(for ticket: ImportTicket, timeout: Duration) async throws(CacheError) -> ImportResult {
    try await wait(for: ticket, until: ContinuousClock.now + timeout)
  }

  /// As `wait(for:timeout:)`, with the deadline as an instant (for a caller that shares one
  /// deadline between several waits).
  public func wait(for ticket: ImportTicket, until deadline: ContinuousClock.Instant) async throws(CacheError)
    -> ImportResult
  {
    var combined: ImportResult?
    for id in ticket.batchIDs {
      let result = try await worker.result(of: id, deadline: deadline)
      guard var total = combined else {
        combined = result
        continue
      }
      total.written += result.written
      total.rejected += result.rejected
      total.coalesced += result.coalesced
      total.retries += result.retries
      total.failure = total.failure ?? result.failure
      total.completionIndex = max(total.completionIndex, result.completionIndex)
      combined = total
    }
    guard let combined else { throw CacheError.invalid("ticket", "the ticket names no batch") }
    return combined
  }

  /// Terminal failures, oldest first (the latest 256): what an app logs to learn that imports
  /// did not reach the cache.
  public func failures() -> [ImportFailure] { worker.failures() }

  /// The number of batches waiting (not counting the one being written); at
  /// `maxPendingBatches`, `enqueue(_:)` refuses a batch it cannot coalesce.
  package var pendingCount: Int { worker.pendingCount }

  /// Retries made so far by the batch being written (tests watch it to act at a known point).
  var currentRetries: Int { worker.currentRetries }

  /// Ends the worker's current or next retry pause at once (tests use it after releasing a lock,
  /// so that they need not wait out a long schedule).
  func interruptPause() { worker.interruptPause() }
}
