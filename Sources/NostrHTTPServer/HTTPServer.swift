internal import CMicroHTTPD
import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one production HTTP/1.1 server, on libmicrohttpd: keep-alive, async handlers
/// (`(HTTPServerRequest) async -> HTTPServerResponse`), WebSocket upgrades handed to the
/// package's frame codec, every bound of ``HTTPServerConfiguration`` enforced, and a graceful
/// stop.
///
/// Threading: one libmicrohttpd thread (`MHD_USE_AUTO_INTERNAL_THREAD`, epoll on Linux) polls
/// every socket. A complete request suspends its connection and runs its handler as a Swift
/// task; the answer resumes it through libmicrohttpd's inter-thread channel
/// (`MHD_ALLOW_SUSPEND_RESUME`). So a thousand waiting handlers hold no thread, and a slow
/// client holds only its socket and its share of the connection limits. The alternative,
/// `MHD_USE_THREAD_PER_CONNECTION`, would spend a thread (and its stack) per client, slow ones
/// included, and still block that thread while an async handler runs.
///
/// ```swift
/// let router = try HTTPServerRouter([
///   HTTPServerRoute("POST", "/echo", maxBodyBytes: 8192) { request in
///     .json(status: 200, request.body)
///   }
/// ])
/// let server = try HTTPServer.start(HTTPServerConfiguration(port: 8080), router: router)
/// // …
/// await server.stop(gracePeriod: .seconds(10))
/// ```
///
/// Call ``stop(gracePeriod:)`` before dropping the server: a running libmicrohttpd daemon keeps
/// the server alive.
public final class HTTPServer: Sendable {
  /// The port the server listens on (the system's choice when the configuration said 0).
  public let port: UInt16

  private let core: ServerCore
  private let stopped = Locked<[CheckedContinuation<Void, Never>]?>([])

  private init(core: ServerCore, port: UInt16) {
    self.core = core
    self.port = port
  }

  /// Validates `configuration`, binds its address and starts serving `router`;
  /// `invalid_configuration` (naming the field) or `start_failed` (the port is taken).
  public static func start(
    _ configuration: HTTPServerConfiguration, router: HTTPServerRouter
  ) throws(HTTPServerError) -> HTTPServer {
    try configuration.validate()
    let core = ServerCore(configuration: configuration, router: router)
    var settings = nostrpush_mhd_settings()
    settings.flags =
      UInt32(MHD_USE_AUTO_INTERNAL_THREAD.rawValue) | UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue)
      | UInt32(MHD_ALLOW_UPGRADE.rawValue)
    settings.ipv4_address = try configuration.ipv4Address()
    settings.port = configuration.port
    settings.connection_limit = UInt32(configuration.maxConnections)
    settings.per_ip_connection_limit = UInt32(configuration.maxConnectionsPerIP)
    settings.idle_timeout_seconds = configuration.idleTimeoutSeconds
    settings.connection_memory_limit = configuration.connectionMemoryLimit
    settings.listen_backlog = 511
    // The daemon holds the core (released by `stop` after the daemon ended).
    let cls = Unmanaged.passRetained(core).toOpaque()
    guard
      let daemon = nostrpush_mhd_start(
        &settings, accessHandler, completedHandler, connectionHandler, uriLogHandler, cls)
    else {
      Unmanaged<ServerCore>.fromOpaque(cls).release()
      throw HTTPServerError(
        code: .startFailed, field: "port",
        message: "libmicrohttpd could not listen on \(configuration.host):\(configuration.port)")
    }
    core.daemon = daemon
    core.deadlines.startSweeping()
    return HTTPServer(core: core, port: nostrpush_mhd_bound_port(daemon))
  }

  /// How many connections libmicrohttpd holds now (accepted and not yet closed).
  package var openConnections: Int {
    guard let daemon = core.daemon, !core.isStopping else { return 0 }
    return Int(nostrpush_mhd_current_connections(daemon))
  }

  /// How many connections the header-read timeout has cut so far.
  package var headReadTimeoutCuts: Int { core.deadlines.cutCount.current }

  /// Stops gracefully: stops accepting at once, answers 503 (and closes) any new request on an
  /// open connection, waits up to `gracePeriod` for running handlers and their answers to be
  /// sent, then cancels the handlers still running and waits for them (a handler must honour
  /// cancellation), ends upgraded WebSocket connections, and stops libmicrohttpd. An answer a
  /// client does not read holds the stop until the idle timeout closes that connection. A second
  /// call returns when the first one has finished.
  public func stop(gracePeriod: Duration = .seconds(10)) async {
    guard core.beginStop() else {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let done = stopped.withLock { waiters in
          guard waiters != nil else { return true }
          waiters?.append(continuation)
          return false
        }
        if done { continuation.resume() }
      }
      return
    }
    let daemon = core.daemon!
    let listener = MHD_quiesce_daemon(daemon)
    if listener >= 0 { close(listener) }
    if await !core.waitForIdle(until: .now + gracePeriod) {
      core.cancelHandlers()
      _ = await core.waitForIdle(until: nil)
    }
    await core.endWebSockets()
    core.deadlines.stopSweeping()
    let handle = DaemonHandle(pointer: daemon)
    await BlockingWork.run { MHD_stop_daemon(handle.pointer) }
    Unmanaged.passUnretained(core).release()
    let waiters = stopped.withLock { waiters in
      defer { waiters = nil }
      return waiters ?? []
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// The daemon pointer handed to the thread that stops it.
///
/// `@unchecked Sendable`: `MHD_stop_daemon` is called once, after every request ended.
private struct DaemonHandle: @unchecked Sendable {
  let pointer: OpaquePointer
}
