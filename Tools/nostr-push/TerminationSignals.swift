import Dispatch
import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTesting

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

extension TerminationSignals {
  /// The life of a serving command (`relay`, `gateway`): arms the signals, starts `fixture`,
  /// prints `listening(url)` on standard output, serves until SIGINT or SIGTERM, then stops it
  /// (exit 0); a start that fails prints `nostr-push <command>: <error>` on standard error (exit 1).
  static func serve(
    _ command: String, _ fixture: some LoopbackFixture, start: () async throws -> URL,
    listening: (URL) -> String
  ) async -> Int32 {
    let signals = arm()
    let url: URL
    do {
      url = try await start()
    } catch {
      CLIOutput.error("nostr-push \(command): \(error)")
      return ExitCode.failure
    }
    CLIOutput.line(listening(url))
    await signals.wait()
    await fixture.stop()
    return ExitCode.success
  }
}
