import NostrPushCore

/// How an enqueue wakes the delivery worker, so a wake never waits for a timer.
///
/// Every enqueue calls ``notify()``, which advances ``count``. A worker reads ``count`` before it
/// claims and, idle after a batch that was not full, calls ``wait(after:timeout:)`` with what it
/// read: the wait returns at once if a notification came since (while it was claiming), else at
/// the next one, or when the fallback timeout passes. Each worker compares against its own
/// reading, so several workers never consume one another's notification. In one process this is
/// ``InProcessWakeSignal``; across processes, a database listener (PostgreSQL `NOTIFY`).
public protocol WakeSignal: Sendable {
  /// Says that wakes were enqueued.
  func notify()
  /// How many notifications there have been.
  var count: UInt64 { get }
  /// Returns once ``count`` is past `seen` (at once if it already is), after `timeout`, or when
  /// the task is cancelled.
  func wait(after seen: UInt64, timeout: Duration) async
}

/// The in-process ``WakeSignal``: a notification count and the waiting workers' continuations,
/// under a lock.
public final class InProcessWakeSignal: WakeSignal {
  private struct State {
    var count: UInt64 = 0
    var nextID: UInt64 = 0
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
  }

  private let state = Locked(State())

  /// A signal with no notification yet.
  public init() {}

  /// Advances ``count`` and wakes every waiting worker.
  public func notify() {
    let waiters = state.withLock { state in
      state.count &+= 1
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// How many notifications there have been.
  public var count: UInt64 { state.withLock { $0.count } }

  /// Returns once a notification came after `seen`, `timeout` passed, or the task is cancelled.
  public func wait(after seen: UInt64, timeout: Duration) async {
    guard count == seen else { return }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { [self] in await waitForNotification(after: seen) }
      group.addTask { try? await Task.sleep(for: timeout) }
      await group.next()
      group.cancelAll()
    }
  }

  private func waitForNotification(after seen: UInt64) async {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state in
          if state.count != seen || Task.isCancelled { return true }
          state.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }
}
