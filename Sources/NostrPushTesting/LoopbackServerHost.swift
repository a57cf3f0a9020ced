import Dispatch
import Foundation
import NostrPushCore
import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bind, serve and stop lifecycle of one serving loop on a loopback socket: the listener,
/// the stop pipe, the serving thread and the origin. The relay fixture and the gateway fixture
/// both run on it.
final class LoopbackServerHost: Sendable {
  private enum Lifecycle {
    case idle
    case running(listener: Int32, stopRead: Int32, stopWrite: Int32, origin: RelayOrigin)
    case stopped
  }

  private let lifecycle = Locked(Lifecycle.idle)
  private let threads = DispatchGroup()

  /// Binds `configuration`'s address, runs `prepare` with the origin (`http://<host>:<port>`, the
  /// host `originHost` or the bound address), then `serve(listener, stopPipe, origin)` on the
  /// serving thread; returns the origin. A `prepare` that throws leaves nothing bound.
  ///
  /// The origin is one ``RelayOrigin``, parsed once here: its HTTP form is `description`, its
  /// WebSocket form `webSocketURL`, never a string rewritten by prefix.
  func start(
    address: LoopbackAddress, configuration: RelayFixtureConfiguration, originHost: String? = nil,
    prepare: (RelayOrigin) throws(RelayFixtureError) -> Void = { _ in },
    serve: @escaping @Sendable (_ listener: Int32, _ stopPipe: Int32, _ origin: RelayOrigin) -> Void
  ) throws(RelayFixtureError) -> RelayOrigin {
    guard (0...65535).contains(configuration.port) else {
      throw RelayFixtureError(
        code: .invalidPort, field: "port", message: "\(configuration.port) is not in 0...65535")
    }
    let isIdle = lifecycle.withLock { if case .idle = $0 { true } else { false } }
    guard isIdle else {
      throw RelayFixtureError(code: .invalidState, field: "start", message: "the server was already started")
    }
    let (listener, port) = try PosixSocket.listen(
      on: address, port: configuration.port, backlog: RelayFixtureServer.listenBacklog)
    let stopPipe: (read: Int32, write: Int32)
    do {
      stopPipe = try PosixSocket.makeStopPipe()
    } catch {
      close(listener)
      throw error
    }
    let origin: RelayOrigin
    do throws(RelayFixtureError) {
      do {
        origin = try RelayOrigin("http://\(originHost ?? address.urlHost):\(port)")
      } catch {
        throw RelayFixtureError(code: .invalidHost, field: "host", message: error.message)
      }
      try prepare(origin)
    } catch {
      close(listener)
      close(stopPipe.read)
      close(stopPipe.write)
      throw error
    }
    let claimed = lifecycle.withLock { state -> Bool in
      guard case .idle = state else { return false }
      state = .running(listener: listener, stopRead: stopPipe.read, stopWrite: stopPipe.write, origin: origin)
      return true
    }
    guard claimed else {
      close(listener)
      close(stopPipe.read)
      close(stopPipe.write)
      throw RelayFixtureError(code: .invalidState, field: "start", message: "the server was already started")
    }
    threads.enter()
    let thread = Thread { [threads] in
      serve(listener, stopPipe.read, origin)
      threads.leave()
    }
    thread.stackSize = RelayFixtureServer.threadStackBytes
    thread.start()
    return origin
  }

  /// As `start(address:configuration:originHost:prepare:serve:)` for a server that only answers
  /// HTTP requests (the gateway fixture): `respond` receives the origin too, so NIP-98 `u`
  /// checks can name the bound port.
  func start(
    address: LoopbackAddress, configuration: RelayFixtureConfiguration,
    respond: @escaping @Sendable (HTTPRequest, RelayOrigin) -> (response: OutboundResponse, delay: Duration)
  ) throws(RelayFixtureError) -> RelayOrigin {
    try start(address: address, configuration: configuration) { listener, stopPipe, origin in
      let loop = ConnectionLoop(
        listener: listener, stopPipe: stopPipe, configuration: configuration,
        respond: { request in respond(request, origin) }, recordRejection: { _ in }, reportCount: { _ in },
        // Such servers never answer an upgrade, so no connection becomes a WebSocket.
        webSocketMessage: { _, _ in WebSocketRelay.Outcome() }, reportSubscriptions: { _ in })
      loop.run()
    }
  }

  /// The origin while running, else nil.
  var origin: RelayOrigin? {
    lifecycle.withLock { state in
      if case .running(_, _, _, let origin) = state { return origin }
      return nil
    }
  }

  /// Stops accepting, closes every connection and returns once the serving thread has ended; safe
  /// to call more than once.
  func stop() async {
    let running = lifecycle.withLock { state -> (listener: Int32, read: Int32, write: Int32)? in
      defer { state = .stopped }
      guard case .running(let listener, let read, let write, _) = state else { return nil }
      return (listener, read, write)
    }
    guard let running else { return }
    var byte: UInt8 = 1
    _ = write(running.write, &byte, 1)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      threads.notify(queue: .global()) { continuation.resume() }
    }
    close(running.listener)
    close(running.read)
    close(running.write)
  }
}
