import CLibPQ
import Foundation
import PushRelay
import _NostrPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `WakeSignal` of a relay of several processes: `LISTEN push_wake` on a connection of its
/// own, so an enqueue in any process (`NOTIFY push_wake`, sent when it commits) wakes this
/// process's worker at once (`Docs/VendoringPushRelay.md`, "PostgreSQL").
///
/// A thread of its own waits on the connection's socket and counts each batch of notifications
/// into an `InProcessWakeSignal` the workers wait on. A lost connection (a server restart, the
/// backend terminated) is reopened with a growing pause (100 ms … 2 s); after every (re)connect the
/// listener notifies once, so the worker sweeps: notifications sent while it was away are lost,
/// the rows are not. ``notify()`` (this process's own enqueue) wakes the local workers directly.
public final class PostgresWakeListener: WakeSignal, Sendable {
  private let local = InProcessWakeSignal()
  private let loop: ListenerLoop

  /// Connects to `database`, listens, and starts the listening thread. Throws `storage` when the
  /// first connection fails.
  public init(database: PostgresDatabase) throws(PushRelayError) {
    let connection = try database.connect()
    do throws(PostgresFailure) {
      try connection.execute("LISTEN push_wake")
    } catch {
      throw error.relayError
    }
    loop = ListenerLoop(connection: connection, signal: local)
    let loop = self.loop
    let thread = Thread { loop.run() }
    thread.name = "PostgresWakeListener"
    thread.start()
  }

  deinit { loop.stop() }

  /// Stops the listening thread (within its 250 ms poll) and closes its connection.
  public func close() { loop.stop() }

  /// Wakes this process's workers (an enqueue here; other processes hear its `NOTIFY`).
  public func notify() { local.notify() }

  /// How many notifications there have been, local and from the database.
  public var count: UInt64 { local.count }

  /// Returns once a notification came after `seen`, `timeout` passed, or the task is cancelled.
  public func wait(after seen: UInt64, timeout: Duration) async {
    await local.wait(after: seen, timeout: timeout)
  }

  /// How many times the listener has connected (1 at start; each reconnect adds one), for tests.
  package var connections: Int { loop.connections }

  /// The server process id of the listening connection, for a test that terminates it.
  package var backendProcessID: Int32 { loop.backendProcessID }
}

/// The listening thread's state: the connection, touched only by that thread once started, and
/// the counters tests read under a lock. `@unchecked Sendable` for that reason.
private final class ListenerLoop: @unchecked Sendable {
  private static let pollMilliseconds: Int32 = 250
  private static let firstPause: UInt32 = 100_000
  private static let longestPause: UInt32 = 2_000_000

  private let connection: PostgresConnection
  private let signal: InProcessWakeSignal
  private let shared = Locked((stopped: false, connections: 1, backend: Int32(0)))

  init(connection: PostgresConnection, signal: InProcessWakeSignal) {
    self.connection = connection
    self.signal = signal
    if let handle = try? connection.connectedHandle() {
      let backend = PQbackendPID(handle)
      shared.withLock { $0.backend = backend }
    }
  }

  var connections: Int { shared.withLock { $0.connections } }
  var backendProcessID: Int32 { shared.withLock { $0.backend } }

  func stop() { shared.withLock { $0.stopped = true } }

  private var stopped: Bool { shared.withLock { $0.stopped } }

  func run() {
    var pause = Self.firstPause
    while !stopped {
      if !connection.isConnected {
        do throws(PostgresFailure) {
          let handle = try connection.connectedHandle()
          try connection.execute("LISTEN push_wake")
          let backend = PQbackendPID(handle)
          shared.withLock {
            $0.connections += 1
            $0.backend = backend
          }
          pause = Self.firstPause
          // Notifications sent while away are lost; the rows are not: sweep once.
          signal.notify()
        } catch {
          connection.close()
          usleep(pause)
          pause = min(pause * 2, Self.longestPause)
          continue
        }
      }
      guard let handle = connection.currentHandle else { continue }
      var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, Self.pollMilliseconds)
      if ready < 0 && errno != EINTR {
        connection.close()
        continue
      }
      guard ready > 0 else { continue }
      guard PQconsumeInput(handle) == 1 else {
        connection.close()
        continue
      }
      var heard = false
      while let notification = PQnotifies(handle) {
        heard = true
        PQfreemem(notification)
      }
      if heard { signal.notify() }
      if PQstatus(handle) != CONNECTION_OK { connection.close() }
    }
    connection.close()
  }
}
