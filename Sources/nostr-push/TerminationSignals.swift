import Dispatch
import Foundation
import NostrEvent
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
  private let sources = Locked<[any DispatchSourceSignal]>([])
  /// Resumed by the first signal; remembers one that comes before `wait()`.
  private let fired = ResumeOnce<Void>()

  private init() {}

  /// Ignores SIGINT, SIGTERM and SIGPIPE's default actions and starts listening for the first two.
  static func arm() -> TerminationSignals {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    let signals = TerminationSignals()
    signals.sources.withLock { sources in
      for number in [SIGINT, SIGTERM] {
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { [signals] in signals.fired.resume(with: ()) }
        source.resume()
        sources.append(source)
      }
    }
    return signals
  }

  /// Returns once SIGINT or SIGTERM has arrived (at once if one already did), then stops listening.
  func wait() async {
    await withCheckedContinuation { fired.attach($0) }
    sources.withLock { sources in
      for source in sources { source.cancel() }
      sources.removeAll()
    }
  }
}
