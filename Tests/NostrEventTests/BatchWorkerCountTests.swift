import Foundation
import NostrPushCore
import Testing

@testable import NostrEvent

/// `BatchVerifier.mapChunks` runs exactly the number of workers it is given (`verify --threads N`),
/// whatever the number of cores: a transform that waits for the others to arrive counts how many
/// run at once.
@Suite struct BatchWorkerCountTests {
  /// How many transforms are running now and the most that ever ran at once.
  final class Occupancy: Sendable {
    private let state = Locked((running: 0, most: 0, visits: 0))

    /// Enters; the first `waiters` visits then wait up to `patience` for `expected` transforms to be
    /// inside at once (so that every worker that exists is counted); then leaves.
    func visit(expecting expected: Int, waiters: Int, patience: Duration) {
      let waits = state.withLock {
        $0.running += 1
        $0.visits += 1
        $0.most = max($0.most, $0.running)
        return $0.visits <= waiters
      }
      let deadline = ContinuousClock.now + (waits ? patience : .zero)
      while state.withLock({ $0.most }) < expected, ContinuousClock.now < deadline {
        Thread.sleep(forTimeInterval: 0.001)
      }
      state.withLock { $0.running -= 1 }
    }

    /// The most transforms that ran at once.
    var most: Int { state.withLock { $0.most } }
  }

  @Test(arguments: [1, 2, 3, 5])
  func runsAsManyWorkersAsItIsGiven(threads: Int) {
    let occupancy = Occupancy()
    // Enough items for every worker; each waits for one more than asked, so a pool wider than
    // `threads` would show itself, and a narrower one never reaches `threads`.
    let outputs = BatchVerifier.mapChunks(count: 64 * 16, threads: threads, placeholder: 0) { range in
      occupancy.visit(expecting: threads + 1, waiters: threads, patience: .milliseconds(200))
      return range.count
    }
    #expect(outputs.reduce(0, +) == 64 * 16)
    #expect(occupancy.most == threads)
  }

  @Test func keepsTheOrderOfTheRanges() {
    let outputs = BatchVerifier.mapChunks(count: 5_000, threads: 4, placeholder: [Int]()) { Array($0) }
    #expect(outputs.flatMap { $0 } == Array(0..<5_000))
  }
}
