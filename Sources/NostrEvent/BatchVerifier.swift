import Dispatch
import Foundation
import NostrJSON
import NostrPushCore

/// Verifies many events at once, spreading the work over every core.
///
/// Signature checks dominate the cost and share nothing but the immutable verification
/// context, so chunks of the batch run in parallel on a fixed number of worker threads.
package enum BatchVerifier {
  /// The fewest events one worker takes, so that tiny batches do not pay for scheduling.
  package static let minimumChunk = 64
  /// The fewest items in one range of `mapChunks` (but the last).
  static let minimumRange = 4

  /// The outcome of `Event.verify()` for each event, in order.
  package static func verify(_ events: [Event]) -> [EventVerification] {
    map(count: events.count) { events[$0].verify() }
  }

  /// Parses and verifies each JSON document, in order: a parse failure is the `EventError`, a
  /// parsed event the outcome of its verification.
  package static func verify(jsonDocuments: [[UInt8]]) -> [Result<EventVerification, EventError>] {
    map(count: jsonDocuments.count) { index in
      Result { () throws(EventError) in try Event(json: jsonDocuments[index]).verify() }
    }
  }

  /// The number of workers a batch uses by default: the active processor count.
  package static var activeCores: Int { ProcessInfoCores.active }

  /// `transform` of every index in `0..<count`, in order, computed on at most `threads` workers.
  ///
  /// With `threads` 1 it runs on the calling thread.
  package static func map<Output: Sendable>(
    count: Int, threads: Int = activeCores, _ transform: @escaping @Sendable (Int) -> Output
  ) -> [Output] {
    mapChunks(count: count, threads: threads, placeholder: [Output]()) { range in range.map(transform) }
      .flatMap { $0 }
  }

  /// `transform` of consecutive ranges that together cover `0..<count`, in order, computed by
  /// exactly `min(threads, count / minimumChunk)` workers (at least one); each range goes to one
  /// worker, which can keep its own buffers for it.
  ///
  /// The one-shot map behind every batch in the package (`nostr-push verify --jsonl` streams its
  /// batches through `OrderedChunkStream` instead, so that no batch ends at a join). The calling
  /// thread is one worker and borrows the others from `ParkedThreads` (threads created once and
  /// parked between calls, not one per call), so `threads` bounds the verifications running at
  /// once on any machine (Dispatch's `concurrentPerform` would spread the ranges over every core
  /// whatever `threads` says). The workers take the next range from a shared counter until none is left,
  /// so a slow range does not hold the others up. With `threads` 1 (or a small batch) it runs on
  /// the calling thread as one range.
  package static func mapChunks<Output: Sendable>(
    count: Int, threads: Int = activeCores, placeholder: Output,
    _ transform: @escaping @Sendable (Range<Int>) -> Output
  ) -> [Output] {
    guard count > 0 else { return [] }
    let workers = max(1, min(threads, (count + minimumChunk - 1) / minimumChunk))
    guard workers > 1 else { return [transform(0..<count)] }
    // Many small ranges, so that the last ones even out the workers before the batch ends.
    let chunkSize = max(Self.minimumRange, (count + workers * 32 - 1) / (workers * 32))
    let chunks = (count + chunkSize - 1) / chunkSize
    var results = [Output](repeating: placeholder, count: chunks)
    results.withUnsafeMutableBufferPointer { output in
      let output = UnsafeSendableBuffer(buffer: output)
      let next = Locked(0)
      let work: @Sendable () -> Void = {
        while true {
          let chunk = next.withLock { value -> Int in
            defer { value += 1 }
            return value
          }
          guard chunk < chunks else { return }
          let start = chunk * chunkSize
          output.buffer[chunk] = transform(start..<min(count, start + chunkSize))
        }
      }
      let others = ParkedThreads.shared.start(workers - 1) { _ in work() }
      work()
      others.wait()
    }
    return results
  }
}

/// A buffer whose disjoint ranges are written by different workers.
///
/// `@unchecked Sendable`: every index is written by exactly one worker, and the buffer outlives
/// the workers: `mapChunks` returns only when all of them are done.
private struct UnsafeSendableBuffer<Element>: @unchecked Sendable {
  let buffer: UnsafeMutableBufferPointer<Element>
}
