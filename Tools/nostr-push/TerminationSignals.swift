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

/// The write end of the pipe the signal handler writes to (-1 before `arm()`): a C signal handler
/// captures nothing, so it reads this global, which is set once before the handler is installed.
nonisolated(unsafe) private var terminationPipeWriteEnd: Int32 = -1

/// SIGINT and SIGTERM for the serving commands (`relay`, `gateway`), caught from `arm()` on.
///
/// A real handler (`sigaction`) writes one byte to a pipe, and `wait()` reads it on a thread of
/// its own: whichever thread the kernel delivers the signal to runs the handler, so none is lost.
/// (A dispatch signal source on Linux reads a `signalfd` while the disposition is `SIG_IGN`; a
/// SIGTERM delivered to a thread that does not block it was discarded, and a `relay` then served
/// on after its test's SIGTERM until the test's time limit.) A command arms before it prints its
/// listening line, so a client that signals as soon as it reads the line never finds the default
/// action still in place; a signal that arrives before `wait()` stays in the pipe.
final class TerminationSignals: Sendable {
  private let readEnd: Int32

  private init(readEnd: Int32) { self.readEnd = readEnd }

  /// Installs the handler for SIGINT and SIGTERM, and ignores SIGPIPE.
  static func arm() -> TerminationSignals {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { fatalError("nostr-push: cannot create the signal pipe (errno \(errno))") }
    terminationPipeWriteEnd = ends[1]
    signal(SIGPIPE, SIG_IGN)
    for number in [SIGINT, SIGTERM] {
      var action = sigaction()
      #if canImport(Glibc)
      action.__sigaction_handler.sa_handler = { _ in
        var byte: UInt8 = 1
        _ = write(terminationPipeWriteEnd, &byte, 1)
      }
      #else
      action.__sigaction_u.__sa_handler = { _ in
        var byte: UInt8 = 1
        _ = write(terminationPipeWriteEnd, &byte, 1)
      }
      #endif
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_RESTART
      sigaction(number, &action, nil)
    }
    return TerminationSignals(readEnd: ends[0])
  }

  /// Returns once SIGINT or SIGTERM has arrived (at once if one already did).
  func wait() async {
    let readEnd = self.readEnd
    await BlockingWork.run {
      var byte: UInt8 = 0
      while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
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
