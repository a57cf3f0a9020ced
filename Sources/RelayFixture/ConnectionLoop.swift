#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import NostrWebSocket

/// Serves every connection of one fixture relay from a single thread with `poll()`.
///
/// Sockets are non-blocking; each connection moves between reading a request, holding its answer
/// (a delay fault) and writing it, with a deadline on each phase: the request timeout from a
/// request's first byte, the idle timeout between requests, the write timeout for an answer. A
/// client that trickles bytes or stops reading therefore costs a few hundred bytes of state and
/// never stalls the others, and no thread is made per connection: memory after a burst of clients
/// returns to where it was. Past `maxConnections` the listener is not polled, so further clients
/// wait in the kernel's backlog. A byte on the stop pipe closes every connection and ends `run()`.
final class ConnectionLoop {
  /// What the server answers to one request, and how long a delay fault holds that answer.
  typealias Responder = (HTTPRequest) -> (response: OutboundResponse, delay: Duration)

  /// The size of one `recv()`.
  private static let readChunkBytes = 16 * 1024
  /// How long accepting pauses when the process is out of descriptors.
  private static let acceptPause: Duration = .milliseconds(50)

  private let listener: Int32
  private let stopPipe: Int32
  private let configuration: RelayFixtureConfiguration
  private let respond: Responder
  private let recordRejection: (Int) -> Void
  private let reportCount: (Int) -> Void
  private var connections: [Int32: FixtureSocket] = [:]
  private var acceptPausedUntil: ContinuousClock.Instant?
  private var scratch = [UInt8](repeating: 0, count: ConnectionLoop.readChunkBytes)

  /// Creates a loop over `listener`; `respond` answers each request, `recordRejection` logs a
  /// request refused before it could be routed (its status), `reportCount` hears the number of
  /// open connections whenever it changes.
  init(
    listener: Int32, stopPipe: Int32, configuration: RelayFixtureConfiguration, respond: @escaping Responder,
    recordRejection: @escaping (Int) -> Void, reportCount: @escaping (Int) -> Void
  ) {
    self.listener = listener
    self.stopPipe = stopPipe
    self.configuration = configuration
    self.respond = respond
    self.recordRejection = recordRejection
    self.reportCount = reportCount
  }

  /// Serves until a byte arrives on the stop pipe, then closes every connection.
  func run() {
    PosixSocket.setNonBlocking(listener)
    while true {
      let now = ContinuousClock.now
      for connection in Array(connections.values)
      where connection.deadline <= now && connections[connection.descriptor] === connection {
        expire(connection, now: now)
      }
      let listening =
        connections.count < max(1, configuration.maxConnections)
        && (acceptPausedUntil.map { now >= $0 } ?? true)
      var descriptors = [pollfd(fd: stopPipe, events: Int16(POLLIN), revents: 0)]
      if listening { descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
      let watched = Array(connections.values)
      var wake = acceptPausedUntil.flatMap { $0 > now ? $0 : nil }
      for connection in watched {
        descriptors.append(pollfd(fd: connection.descriptor, events: Self.events(of: connection), revents: 0))
        wake = min(wake ?? connection.deadline, connection.deadline)
      }
      let timeout =
        wake.map { max(0, Int32(clamping: PosixSocket.milliseconds(now.duration(to: $0)) + 1)) } ?? -1
      let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      if descriptors[0].revents != 0 { break }
      if ready == 0 { continue }
      let offset = listening ? 2 : 1
      for (index, connection) in watched.enumerated() where descriptors[offset + index].revents != 0 {
        serve(connection, events: descriptors[offset + index].revents)
      }
      if listening, descriptors[1].revents != 0 { acceptWaiting() }
    }
    for connection in Array(connections.values) { drop(connection) }
  }

  // MARK: Events

  private static func events(of connection: FixtureSocket) -> Int16 {
    switch connection.phase {
    case .reading: Int16(POLLIN)
    case .holding: 0
    case .writing: Int16(POLLOUT)
    }
  }

  private func acceptWaiting() {
    acceptPausedUntil = nil
    while connections.count < max(1, configuration.maxConnections) {
      guard let descriptor = PosixSocket.accept(from: listener) else {
        if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
          acceptPausedUntil = ContinuousClock.now.advanced(by: Self.acceptPause)
        }
        return
      }
      PosixSocket.setNonBlocking(descriptor)
      connections[descriptor] = FixtureSocket(
        descriptor: descriptor, parser: HTTPRequestParser(configuration: configuration),
        idleDeadline: ContinuousClock.now.advanced(by: configuration.idleTimeout))
      reportCount(connections.count)
    }
  }

  private func serve(_ connection: FixtureSocket, events: Int16) {
    switch connection.phase {
    case .reading:
      receive(connection)
    case .holding:
      // Nothing is asked of a held connection; a hang-up or error means nobody will read the answer.
      if events & Int16(POLLHUP | POLLERR) != 0 { drop(connection) }
    case .writing:
      flush(connection)
    }
  }

  private func expire(_ connection: FixtureSocket, now: ContinuousClock.Instant) {
    switch connection.phase {
    case .reading:
      if connection.requestDeadline != nil {
        recordRejection(408)
        start(.rejection(status: 408, message: "request not complete in time"), on: connection, delay: .zero)
      } else {
        drop(connection)
      }
    case .holding:
      connection.phase = .writing(deadline: now.advanced(by: configuration.writeTimeout))
      flush(connection)
    case .writing:
      drop(connection)
    }
  }

  // MARK: Reading

  private func receive(_ connection: FixtureSocket) {
    let room = max(
      1, min(scratch.count, connection.parser.bufferLimit + scratch.count - connection.buffer.count))
    let count = scratch.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, room, 0) }
    if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
    guard count > 0 else {
      drop(connection)
      return
    }
    connection.buffer.append(contentsOf: scratch[0..<count])
    advance(connection)
  }

  /// Takes requests out of the connection's buffer until one needs more bytes or an answer is
  /// being sent.
  private func advance(_ connection: FixtureSocket) {
    while case .reading = connection.phase, connections[connection.descriptor] === connection {
      switch connection.parser.next(from: &connection.buffer) {
      case .needMore:
        if connection.requestDeadline == nil, connection.parser.hasPartialRequest(in: connection.buffer) {
          connection.requestDeadline = ContinuousClock.now.advanced(by: configuration.requestTimeout)
        }
        return
      case .sendContinue:
        if connection.requestDeadline == nil {
          connection.requestDeadline = ContinuousClock.now.advanced(by: configuration.requestTimeout)
        }
        start(OutboundResponse.continueInterim, on: connection, delay: .zero)
      case .request(let request):
        connection.requestDeadline = nil
        let answer = respond(request)
        start(answer.response, on: connection, delay: answer.delay)
      case .reject(let status, let message):
        recordRejection(status)
        start(.rejection(status: status, message: message), on: connection, delay: .zero)
      }
    }
  }

  // MARK: Writing

  private func start(_ response: OutboundResponse, on connection: FixtureSocket, delay: Duration) {
    connection.prepare(response)
    let now = ContinuousClock.now
    if delay > .zero {
      connection.phase = .holding(until: now.advanced(by: delay))
    } else {
      connection.phase = .writing(deadline: now.advanced(by: configuration.writeTimeout))
      flush(connection)
    }
  }

  /// Sends what the socket takes now; once all is sent, closes or goes back to reading.
  private func flush(_ connection: FixtureSocket) {
    guard let outbound = connection.outbound else { return finish(connection) }
    while connection.sentBytes < outbound.bytes.count {
      let written = outbound.bytes.withUnsafeBytes { bytes in
        PosixSocket.sendSome(
          bytes.baseAddress! + connection.sentBytes, count: bytes.count - connection.sentBytes,
          to: connection.descriptor)
      }
      guard let written else { return drop(connection) }
      if written == 0 { return }
      connection.sentBytes += written
    }
    while connection.sentPadding < outbound.paddingBytes {
      let count = min(OutboundResponse.paddingChunkBytes, outbound.paddingBytes - connection.sentPadding)
      let written = OutboundResponse.paddingChunk.withUnsafeBytes { bytes in
        PosixSocket.sendSome(bytes.baseAddress!, count: count, to: connection.descriptor)
      }
      guard let written else { return drop(connection) }
      if written == 0 { return }
      connection.sentPadding += written
    }
    finish(connection)
  }

  private func finish(_ connection: FixtureSocket) {
    guard connection.outbound?.keepsOpen ?? false else { return drop(connection) }
    connection.outbound = nil
    connection.phase = .reading
    connection.idleDeadline = ContinuousClock.now.advanced(by: configuration.idleTimeout)
    advance(connection)
  }

  private func drop(_ connection: FixtureSocket) {
    guard connections.removeValue(forKey: connection.descriptor) != nil else { return }
    close(connection.descriptor)
    reportCount(connections.count)
  }
}
