/// How an enqueue wakes the delivery worker, so a wake never waits for a timer.
///
/// Every enqueue calls ``notify()``; the worker, idle after a batch that was not full, calls
/// ``wait(timeout:)``, which returns at the next notification (or at once if one came since the
/// last wait) or when the fallback timeout passes. In one process this is
/// ``InProcessWakeSignal``; across processes, a database listener (PostgreSQL `NOTIFY`).
public protocol WakeSignal: Sendable {
  /// Says that wakes were enqueued.
  func notify()
  /// Returns at the next notification (at once if one is pending), after `timeout`, or when the
  /// task is cancelled.
  func wait(timeout: Duration) async
}

/// The in-process ``WakeSignal``: a pending flag and the waiting workers' continuations, under a
/// lock.
public final class InProcessWakeSignal: WakeSignal {
  private struct State {
    var pending = false
    var nextID: UInt64 = 0
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
  }

  private let state = Locked(State())

  /// A signal with nothing pending.
  public init() {}

  /// Wakes every waiting worker, or leaves the notification pending for the next wait.
  public func notify() {
    let waiters = state.withLock { state in
      if state.waiters.isEmpty { state.pending = true }
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Waits for a notification, `timeout`, or cancellation, whichever comes first.
  public func wait(timeout: Duration) async {
    let pending = state.withLock { state in
      defer { state.pending = false }
      return state.pending
    }
    guard !pending else { return }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { [self] in await waitForNotification() }
      group.addTask { try? await Task.sleep(for: timeout) }
      await group.next()
      group.cancelAll()
    }
  }

  private func waitForNotification() async {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state in
          if state.pending || Task.isCancelled {
            state.pending = false
            return true
          }
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
