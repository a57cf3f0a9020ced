import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM for the serving commands (`relay`, `gateway`), caught from `arm()` on.
///
/// A command arms before it prints its listening line, so a client that signals as soon as it
/// reads the line never finds the default action (death by SIGTERM) still in place; a signal that
/// arrives before `wait()` is remembered. `@unchecked Sendable` is sound because `sources`,
/// `fired` and `waiter` are only touched with `lock` held.
final class TerminationSignals: @unchecked Sendable {
  private let lock = NSLock()
  private var sources: [any DispatchSourceSignal] = []
  private var fired = false
  private var waiter: CheckedContinuation<Void, Never>?

  private init() {}

  /// Ignores SIGINT, SIGTERM and SIGPIPE's default actions and starts listening for the first two.
  static func arm() -> TerminationSignals {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    let signals = TerminationSignals()
    signals.lock.lock()
    defer { signals.lock.unlock() }
    for number in [SIGINT, SIGTERM] {
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { [signals] in signals.fire() }
      source.resume()
      signals.sources.append(source)
    }
    return signals
  }

  /// Returns once SIGINT or SIGTERM has arrived (at once if one already did), then stops listening.
  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      lock.lock()
      if fired {
        lock.unlock()
        continuation.resume()
      } else {
        waiter = continuation
        lock.unlock()
      }
    }
    disarm()
  }

  private func disarm() {
    lock.lock()
    defer { lock.unlock() }
    for source in sources { source.cancel() }
    sources.removeAll()
  }

  private func fire() {
    lock.lock()
    let continuation = fired ? nil : waiter
    fired = true
    waiter = nil
    lock.unlock()
    continuation?.resume()
  }
}
