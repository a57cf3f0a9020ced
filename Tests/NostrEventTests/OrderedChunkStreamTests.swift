import Foundation
import NostrPushCore
import Testing

@testable import NostrEvent

/// `OrderedChunkStream` (what `nostr-push verify --jsonl --threads N` streams its batches
/// through) runs exactly `threads` workers, the caller included, hands every output back in input
/// order across batches, works on the batches itself once `batchesInFlight` are unanswered, and
/// stops its workers when closed with work still queued.
@Suite struct OrderedChunkStreamTests {
  /// A batch of the tests: its place in the stream and how many items it holds.
  struct Batch: Sendable, Equatable {
    var number: Int
    var count: Int
  }

  @Test(arguments: [1, 2, 3, 5])
  func runsAsManyWorkersAsItIsGiven(threads: Int) {
    let occupancy = BatchWorkerCountTests.Occupancy()
    let stream = OrderedChunkStream<Batch, Void, Int>(
      threads: threads, batchesInFlight: 2, chunkSize: 4, pool: ParkedThreads(), state: {},
      transform: { _, _, range in
        // Each of the first visits waits for one more transform than asked, so a pool wider
        // than `threads` would show itself, and a narrower one never reaches `threads`.
        occupancy.visit(expecting: threads + 1, waiters: threads, patience: .milliseconds(200))
        return range.count
      })
    var total = 0
    for number in 0..<4 {
      stream.submit(
        Batch(number: number, count: 256), count: 256, deliver: { total += $0 }, recycle: { _ in })
    }
    stream.drain(deliver: { total += $0 }, recycle: { _ in })
    #expect(total == 4 * 256)
    #expect(occupancy.most == threads)
  }

  @Test(arguments: [1, 4])
  func deliversEveryOutputInInputOrderAcrossBatches(threads: Int) {
    // Uneven work per item, so that the workers finish their chunks out of order.
    let stream = OrderedChunkStream<Batch, [UInt64], [Int]>(
      threads: threads, batchesInFlight: 3, chunkSize: 3, pool: ParkedThreads(), state: { [] },
      transform: { scratch, batch, range in
        for index in range {
          var value = UInt64(index + 1)
          for _ in 0..<((index * 7919) % 5_000) { value = value &* 6_364_136_223_846_793_005 &+ 1 }
          scratch.append(value)
        }
        return range.map { batch.number * 1_000 + $0 }
      })
    let counts = [7, 1, 0, 64, 5, 3, 100, 2, 31, 9]
    var delivered: [Int] = []
    var recycled: [Int] = []
    for (number, count) in counts.enumerated() {
      stream.submit(
        Batch(number: number, count: count), count: count, deliver: { delivered += $0 },
        recycle: { recycled.append($0.number) })
      // Once `submit` returns, fewer than `batchesInFlight` batches are unanswered.
      #expect(number + 1 - recycled.count < 3)
    }
    stream.drain(deliver: { delivered += $0 }, recycle: { recycled.append($0.number) })
    let expected = counts.enumerated().flatMap { number, count in (0..<count).map { number * 1_000 + $0 } }
    #expect(delivered == expected)
    #expect(recycled == Array(counts.indices))
    #expect(stream.isEmpty)
  }

  @Test(arguments: [1, 3])
  func keepsItsBookkeepingBoundedOverALongStream(threads: Int) {
    let stream = OrderedChunkStream<Batch, Void, Int>(
      threads: threads, batchesInFlight: 2, chunkSize: 8, pool: ParkedThreads(), state: {},
      transform: { _, _, range in range.count })
    var total = 0
    var most = 0
    for number in 0..<2_000 {
      stream.submit(
        Batch(number: number, count: 512), count: 512, deliver: { total += $0 }, recycle: { _ in })
      most = max(most, stream.retainedEntries)
    }
    stream.drain(deliver: { total += $0 }, recycle: { _ in })
    #expect(total == 2_000 * 512)
    // Two batches of 64 chunks in flight: their queue entries, outputs and batches, with the
    // taken and delivered ones kept until they are the larger part (2 000 batches are 128 000
    // chunks).
    #expect(most <= 4 * (2 * 64 + 2))
  }

  @Test func stopsItsWorkersWhenClosedWithWorkQueued() {
    let pool = ParkedThreads()
    let started = Locked(0)
    let arrived = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let stream = OrderedChunkStream<Batch, Void, Int>(
      threads: 3, batchesInFlight: 100, chunkSize: 1, pool: pool, state: {},
      transform: { _, _, range in
        started.withLock { $0 += 1 }
        arrived.signal()
        gate.wait()
        return range.count
      })
    for number in 0..<20 {
      stream.submit(Batch(number: number, count: 500), count: 500, deliver: { _ in }, recycle: { _ in })
    }
    // Both workers hold a chunk; once stopped, neither takes another, and `close` returns when
    // they have finished the ones they hold, leaving 9 998 chunks undone.
    arrived.wait()
    arrived.wait()
    stream.stop()
    gate.signal()
    gate.signal()
    stream.close()
    #expect(started.current == 2)
    #expect(!stream.isEmpty)
    // Both threads are parked again: the next two workers of the pool are the same threads.
    let identities = Locked<Set<ObjectIdentifier>>([])
    for _ in 0..<2 {
      pool.start(2) { _ in identities.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) } }.wait()
    }
    #expect(identities.current.count == 2)
  }
}
