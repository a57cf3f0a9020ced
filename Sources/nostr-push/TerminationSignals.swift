import Dispatch
import Foundation
import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM for the serving commands (`relay`, `gateway`), caught from `arm()` on.
///
/// A command arms before it prints its listening line, so a client that signals as soon as it
/// reads the line never finds the default action (death by SIGTERM) still in place; a signal that
/// arrives before `wait()` is remembered.
final class TerminationSignals: Sendable {
  /// The signal sources, whether a signal came, and the command waiting for one.
  private struct State {
    var sources: [any DispatchSourceSignal] = []
    var fired = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Locked(State())

  private init() {}

  /// Ignores SIGINT, SIGTERM and SIGPIPE's default actions and starts listening for the first two.
  static func arm() -> TerminationSignals {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    let signals = TerminationSignals()
    signals.state.withLock { state in
      for number in [SIGINT, SIGTERM] {
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { [signals] in signals.fire() }
        source.resume()
        state.sources.append(source)
      }
    }
    return signals
  }

  /// Returns once SIGINT or SIGTERM has arrived (at once if one already did), then stops listening.
  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let fired = state.withLock { state in
        if !state.fired { state.waiter = continuation }
        return state.fired
      }
      if fired { continuation.resume() }
    }
    disarm()
  }

  private func disarm() {
    state.withLock { state in
      for source in state.sources { source.cancel() }
      state.sources.removeAll()
    }
  }

  private func fire() {
    let continuation = state.withLock { state in
      defer {
        state.fired = true
        state.waiter = nil
      }
      return state.fired ? nil : state.waiter
    }
    continuation?.resume()
  }
}
