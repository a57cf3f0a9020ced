import Foundation
import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The header-read timeout libmicrohttpd lacks: each connection waiting for a request head has a
/// deadline, and a sweep shuts the socket of one past it, so a client that trickles a byte now
/// and then (resetting the idle timeout each time) is still cut off.
///
/// The sweep runs on a thread of its own (a timed wait on a condition), not on Swift's
/// cooperative pool, so a pool kept busy by handlers cannot delay it.
///
/// A connection's deadline starts when it is accepted, and again when the request line of a
/// kept-alive connection's next request arrives; it is cleared when the head is complete (the
/// first call of the access handler). A kept-alive connection between requests is governed by
/// the idle timeout alone. The sweep runs every quarter of the timeout (at most every second),
/// so a connection is cut between 1 and 1.25 × the timeout after its deadline started.
///
/// The socket is shut down (never closed) under the same lock that libmicrohttpd's close
/// notification takes to forget it, so the descriptor cannot have been closed and reused.
final class HeadReadDeadlines: Sendable {
  private struct Entry {
    var descriptor: Int32
    var deadline: ContinuousClock.Instant?
  }

  private let timeout: Duration
  private let entries = Locked<[UInt: Entry]>([:])
  /// Whether the sweeping thread is to keep running.
  private let sweeping = Locked(false)
  /// Wakes the sweeping thread early when it is to stop.
  private let wake = DispatchSemaphore(value: 0)
  /// How many connections the sweep has cut, for tests and metrics.
  let cutCount = Locked(0)

  init(timeout: Duration) { self.timeout = timeout }

  /// How often the sweep runs.
  var tick: Duration { min(timeout / 4, .seconds(1)) }

  /// A connection was accepted: its head is due within the timeout.
  func accepted(_ connection: UInt, descriptor: Int32) {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    entries.withLock { $0[connection] = Entry(descriptor: descriptor, deadline: deadline) }
  }

  /// A request line arrived: its head is due within the timeout (unless a deadline runs already).
  func requestLineArrived(_ connection: UInt) {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    entries.withLock { entries in
      if entries[connection] != nil, entries[connection]?.deadline == nil {
        entries[connection]?.deadline = deadline
      }
    }
  }

  /// The head arrived whole.
  func headComplete(_ connection: UInt) {
    entries.withLock { $0[connection]?.deadline = nil }
  }

  /// libmicrohttpd is closing the connection.
  func closed(_ connection: UInt) {
    entries.withLock { $0[connection] = nil }
  }

  /// Starts the sweeping thread.
  func startSweeping() {
    sweeping.withLock { $0 = true }
    let thread = Thread { [self] in
      while sweeping.current {
        _ = wake.wait(timeout: .now() + .milliseconds(Int(tick.wholeMilliseconds)))
        guard sweeping.current else { break }
        sweep()
      }
    }
    thread.name = "NostrHTTPServer head-read sweep"
    thread.start()
  }

  /// Ends the sweeping thread (it returns within one wake-up).
  func stopSweeping() {
    sweeping.withLock { $0 = false }
    wake.signal()
  }

  /// Shuts every connection whose head is overdue.
  func sweep() {
    let now = ContinuousClock.now
    let cut = entries.withLock { entries -> Int in
      var cut = 0
      for (connection, entry) in entries {
        guard let deadline = entry.deadline, deadline <= now else { continue }
        shutdown(entry.descriptor, Int32(SHUT_RDWR))
        entries[connection]?.deadline = nil
        cut += 1
      }
      return cut
    }
    if cut > 0 { cutCount.withLock { $0 += cut } }
  }
}
