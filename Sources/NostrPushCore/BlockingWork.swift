import Foundation

/// Runs work that may block — a synchronous SQLite call waiting out another connection's lock, a
/// blocking socket call — off Swift's cooperative thread pool, and suspends the caller until it
/// ends: the package's one way for async code to call blocking code.
///
/// The cooperative pool has one thread per core. Work that waits while holding one of them
/// (up to a whole busy timeout) stalls every other task of the process, the timers that enforce
/// deadlines included. Each call here runs on a serial dispatch queue of its own, which libdispatch
/// serves from its overcommit threads (a fresh one when none is idle), so two waits never queue
/// behind each other or behind the pool.
///
/// The work itself is not interrupted: a caller that must end by a deadline awaits this call
/// inside ``DeadlineRace``, and the work finishes on its own thread after the race is lost.
package enum BlockingWork {
  /// The value of `work` (or its error), run on a thread outside the cooperative pool; a
  /// non-throwing `work` makes a non-throwing call.
  package static func run<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
  ) async throws(Failure) -> T {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
      DispatchQueue(label: "NostrPushCore.BlockingWork").async {
        continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
      }
    }
    return try result.get()
  }
}
