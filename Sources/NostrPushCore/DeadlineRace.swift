import Foundation

/// The package's one deadline helper: awaits work until a deadline, and returns at the deadline —
/// or at once when the awaiting task is cancelled — without waiting for work that cannot itself
/// be interrupted (a blocking call, another task's value).
///
/// HTTP exchanges, NIP-11 discovery, the resolver's wake and its enrichment all bound their work
/// through it, so "the deadline passed" means the same everywhere.
package enum DeadlineRace {
  /// The result of `operation`, or nil when `deadline` passes first or the caller is cancelled.
  ///
  /// With `cancelsOperation` (the resolver's own work) the operation is cancelled the moment the
  /// race is lost, by the deadline or by the caller's cancellation; without it (enrichment whose
  /// late results still go to the cache) it is left running.
  package static func value<T: Sendable>(
    by deadline: ContinuousClock.Instant, cancelsOperation: Bool = false,
    _ operation: @escaping @Sendable () async -> T
  ) async -> T? {
    let gate = ResumeOnce<T?>()
    let worker = Task { gate.resume(with: await operation()) }
    let timer = Task {
      try? await Task.sleep(until: deadline, clock: .continuous)
      gate.resume(with: nil)
      if cancelsOperation { worker.cancel() }
    }
    defer { timer.cancel() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { gate.attach($0) }
    } onCancel: {
      gate.resume(with: nil)
      if cancelsOperation { worker.cancel() }
    }
  }
}

/// A continuation resumed by whichever caller comes first; later calls are ignored.
///
/// The one resume-once gate of the package: `DeadlineRace` races work against its deadline
/// through it, and the CLI's signal wait uses it. Its state is one `Locked` value, so the
/// continuation is resumed exactly once.
package final class ResumeOnce<T: Sendable>: Sendable {
  private enum State {
    case empty
    case waiting(CheckedContinuation<T, Never>)
    case done(T)
    case finished
  }

  private let state = Locked(State.empty)

  /// Creates an empty gate.
  package init() {}

  /// Hands over the waiting continuation; resumes it at once when a value already arrived.
  package func attach(_ continuation: CheckedContinuation<T, Never>) {
    let arrived = state.withLock { state -> T? in
      if case .done(let value) = state {
        state = .finished
        return value
      }
      state = .waiting(continuation)
      return nil
    }
    if let arrived { continuation.resume(returning: arrived) }
  }

  /// Resumes the continuation with `value` unless it was resumed before.
  package func resume(with value: T) {
    let waiting = state.withLock { state -> CheckedContinuation<T, Never>? in
      switch state {
      case .empty:
        state = .done(value)
        return nil
      case .waiting(let continuation):
        state = .finished
        return continuation
      case .done, .finished:
        return nil
      }
    }
    waiting?.resume(returning: value)
  }
}
