import Dispatch
import Foundation
import NostrPushCore

/// Threads kept parked between batches, so that a batch's workers start without creating a thread.
///
/// `BatchVerifier.mapChunks` and `OrderedChunkStream` take their extra workers from here: each
/// call borrows as many parked threads as it needs (starting new ones only when too few are
/// parked) and each thread parks itself again when its job returns. So the threads of a process
/// are created once, and their number never exceeds the most workers that ever ran at once. A
/// parked thread waits on its own semaphore and costs no CPU time.
///
/// Creating and joining a thread per batch (what `mapChunks` did before) cost little CPU, but the
/// new thread started late and the batch ended at a join: `perf sched` on `verify --jsonl
/// --threads 2` showed one worker alone for a quarter of the run (Docs/Performance.md).
package final class ParkedThreads: Sendable {
  /// The process-wide pool.
  package static let shared = ParkedThreads()

  private let parked = Locked<[ParkedThread]>([])

  /// A pool of its own, with no thread yet (the package uses `shared`; tests use their own).
  package init() {}

  /// Runs `body(worker)` for each `worker` in `1...count` on a thread of its own (the caller is
  /// worker 0, by convention) and returns at once; `WorkerGroup.wait()` returns when every one of
  /// them has returned.
  package func start(_ count: Int, _ body: @escaping @Sendable (_ worker: Int) -> Void) -> WorkerGroup {
    let group = WorkerGroup(count: count)
    guard count > 0 else { return group }
    let borrowed = parked.withLock { threads in
      let taken = Array(threads.suffix(count))
      threads.removeLast(taken.count)
      return taken
    }
    for worker in 1...count {
      let thread = worker <= borrowed.count ? borrowed[worker - 1] : ParkedThread(pool: self)
      thread.run(group: group) { body(worker) }
    }
    return group
  }

  /// Puts a thread whose job returned back among the parked ones.
  fileprivate func park(_ thread: ParkedThread) {
    parked.withLock { $0.append(thread) }
  }
}

/// The workers started by one `ParkedThreads.start` call.
package final class WorkerGroup: Sendable {
  private let finished = DispatchSemaphore(value: 0)
  private let count: Int

  fileprivate init(count: Int) {
    self.count = count
  }

  /// Waits until every worker of the group has returned.
  package func wait() {
    for _ in 0..<count { finished.wait() }
  }

  /// One worker returned.
  fileprivate func signal() {
    finished.signal()
  }
}

/// One thread of the pool: it waits for a job, runs it, parks itself again, then tells the job's
/// group (in that order, so that a caller that starts the next batch as soon as `wait()` returns
/// finds it parked).
///
/// `@unchecked Sendable`: `job` is written only while the thread waits on `wake` (by `run`, before
/// signalling it) and read only after that wait returns; the semaphore orders the two.
private final class ParkedThread: @unchecked Sendable {
  private let wake = DispatchSemaphore(value: 0)
  private var job: (body: @Sendable () -> Void, group: WorkerGroup)?

  init(pool: ParkedThreads) {
    let thread = Thread { [self] in
      Thread.current.name = "nostr-push worker"
      while true {
        wake.wait()
        guard let next = job else { continue }
        job = nil
        next.body()
        pool.park(self)
        next.group.signal()
      }
    }
    thread.start()
  }

  /// Hands the thread its next job.
  func run(group: WorkerGroup, _ body: @escaping @Sendable () -> Void) {
    job = (body, group)
    wake.signal()
  }
}
