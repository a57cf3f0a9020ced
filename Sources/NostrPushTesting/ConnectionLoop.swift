import NostrEvent
import NostrWebSocket
import PushRelayServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
  /// Answers one WebSocket text message of a client with the given state.
  typealias WebSocketResponder = ([UInt8], inout WebSocketSessionState) -> WebSocketRelay.Outcome

  /// The size of one `recv()`.
  private static let readChunkBytes = 16 * 1024
  /// How long accepting pauses when the process is out of descriptors.
  private static let acceptPause: Duration = .milliseconds(50)

  private let listener: Int32
  private let stopPipe: Int32
  /// A byte here means events were added from outside the loop (`takeBroadcasts` holds them).
  var notifyPipe: Int32 = -1
  /// The events added from outside the loop since the last call, for open subscriptions.
  var takeBroadcasts: () -> [RelayFixtureData.Entry] = { [] }
  private let configuration: RelayFixtureConfiguration
  private let respond: Responder
  private let recordRejection: (Int) -> Void
  private let reportCount: (Int) -> Void
  private let webSocketMessage: WebSocketResponder
  private let reportSubscriptions: (Int) -> Void
  private var subscriptionTotal = 0
  private var connections: [Int32: FixtureSocket] = [:]
  private var acceptPausedUntil: ContinuousClock.Instant?
  private var scratch = [UInt8](repeating: 0, count: ConnectionLoop.readChunkBytes)

  /// Creates a loop over `listener`; `respond` answers each request, `recordRejection` logs a
  /// request refused before it could be routed (its status), `reportCount` hears the number of
  /// open connections whenever it changes.
  init(
    listener: Int32, stopPipe: Int32, configuration: RelayFixtureConfiguration, respond: @escaping Responder,
    recordRejection: @escaping (Int) -> Void, reportCount: @escaping (Int) -> Void,
    webSocketMessage: @escaping WebSocketResponder, reportSubscriptions: @escaping (Int) -> Void
  ) {
    self.reportSubscriptions = reportSubscriptions
    self.webSocketMessage = webSocketMessage
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
      var descriptors = [
        pollfd(fd: stopPipe, events: Int16(POLLIN), revents: 0),
        pollfd(fd: notifyPipe, events: Int16(POLLIN), revents: 0),
      ]
      if listening { descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
      let watched = Array(connections.values)
      var wake = acceptPausedUntil.flatMap { $0 > now ? $0 : nil }
      for connection in watched {
        descriptors.append(pollfd(fd: connection.descriptor, events: Self.events(of: connection), revents: 0))
        wake = min(wake ?? connection.deadline, connection.deadline)
      }
      let timeout =
        wake.map { max(0, Int32(clamping: now.duration(to: $0).wholeMilliseconds + 1)) } ?? -1
      let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      if descriptors[0].revents != 0 { break }
      if ready == 0 { continue }
      if descriptors[1].revents != 0 {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(notifyPipe, &scratch, scratch.count) > 0 {}
        for entry in takeBroadcasts() { broadcast(entry) }
      }
      let offset = listening ? 3 : 2
      for (index, connection) in watched.enumerated() where descriptors[offset + index].revents != 0 {
        serve(connection, events: descriptors[offset + index].revents)
      }
      if listening, descriptors[2].revents != 0 { acceptWaiting() }
    }
    for connection in Array(connections.values) { drop(connection) }
  }

  // MARK: Events

  private static func events(of connection: FixtureSocket) -> Int16 {
    switch connection.phase {
    case .reading: Int16(POLLIN)
    case .holding: 0
    case .writing: Int16(POLLOUT)
    case .webSocket: Int16(POLLIN) | ((connection.webSocket?.queue.isEmpty ?? true) ? 0 : Int16(POLLOUT))
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
    case .webSocket:
      if events & Int16(POLLOUT) != 0 { flushFrames(connection) }
      if events & Int16(POLLIN | POLLHUP | POLLERR) != 0, connections[connection.descriptor] === connection {
        receiveFrames(connection)
      }
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
    case .webSocket:
      guard let socket = connection.webSocket else { return drop(connection) }
      if socket.closingSince != nil { return drop(connection) }
      if let held = socket.held, held.until <= now {
        socket.held = nil
        deliver(held.replies, fault: held.fault, broadcast: held.broadcast, on: connection)
        if connections[connection.descriptor] === connection {
          takeFrames(connection)
          if connections[connection.descriptor] === connection { flushFrames(connection) }
        }
        return
      }
      if let started = socket.frameStarted, started.advanced(by: FixtureWebSocket.frameTimeout) <= now {
        socket.startClose(code: WebSocketCloseCode.policyViolation, reason: "frame not complete in time")
      } else {
        socket.startClose(code: WebSocketCloseCode.goingAway, reason: "idle")
      }
      flushFrames(connection)
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
        if request.header("upgrade") != nil,
          connections.values.count(where: { $0.webSocket != nil }) >= FixtureWebSocket.maxUpgraded
        {
          recordRejection(503)
          start(
            .rejection(status: 503, message: "too many WebSocket connections"), on: connection, delay: .zero)
          return
        }
        let answer = respond(request)
        if let entry = answer.response.broadcast { broadcast(entry) }
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
      guard
        let written = PosixSocket.sendSome(
          outbound.bytes, from: connection.sentBytes, to: connection.descriptor)
      else { return drop(connection) }
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
    if connection.outbound?.upgrades ?? false { return upgrade(connection) }
    connection.outbound = nil
    connection.phase = .reading
    connection.idleDeadline = ContinuousClock.now.advanced(by: configuration.idleTimeout)
    advance(connection)
  }

  // MARK: WebSocket

  private func upgrade(_ connection: FixtureSocket) {
    connection.outbound = nil
    let socket = FixtureWebSocket()
    connection.webSocket = socket
    connection.phase = .webSocket
    _ = socket.enqueueText(RelayMessages.challenge(socket.session.challenge))
    if !connection.buffer.isEmpty {
      socket.decoder.append(connection.buffer)
      connection.buffer = []
      takeFrames(connection)
    }
    flushFrames(connection)
  }

  private func receiveFrames(_ connection: FixtureSocket) {
    guard let socket = connection.webSocket else { return }
    let count = scratch.withUnsafeMutableBytes { PosixSocket.receiveSome($0, from: connection.descriptor) }
    guard let count else { return }
    guard count > 0 else { return drop(connection) }
    socket.lastHeard = ContinuousClock.now
    socket.decoder.append(scratch[0..<count])
    takeFrames(connection)
    if connections[connection.descriptor] === connection { flushFrames(connection) }
  }

  /// Handles every complete frame in the connection's decoder.
  private func takeFrames(_ connection: FixtureSocket) {
    guard let socket = connection.webSocket else { return }
    var tookOne = false
    while connections[connection.descriptor] === connection, socket.held == nil {
      let outcome: WebSocketMessageAssembler.Outcome
      switch socket.decoder.next() {
      case .needMore:
        if socket.decoder.bufferedCount == 0 {
          socket.frameStarted = nil
        } else if tookOne || socket.frameStarted == nil {
          socket.frameStarted = ContinuousClock.now
        }
        return
      case .violation(let violation): outcome = .violation(violation)
      case .frame(let frame):
        tookOne = true
        outcome = socket.assembler.take(frame)
      }
      if socket.closingSince != nil {
        if case .close = outcome { return drop(connection) }
        if case .violation = outcome { return drop(connection) }
        continue
      }
      switch outcome {
      case .partial, .pong: continue
      case .ping(let payload):
        if !socket.enqueuePong(payload) { return drop(connection) }
      case .close(let code, _):
        socket.enqueue(
          WebSocketFrameEncoder.close(code: code ?? WebSocketCloseCode.normal, role: .server))
        socket.closeWhenFlushed = true
        socket.closingSince = ContinuousClock.now
        return
      case .violation(let violation):
        socket.startClose(code: violation.closeCode, reason: violation.message)
        return
      case .text(let message):
        let outcome = webSocketMessage(message, &socket.session)
        countSubscriptions()
        if outcome.delay > .zero {
          socket.held = (
            ContinuousClock.now.advanced(by: outcome.delay), outcome.replies, outcome.fault, outcome.broadcast
          )
          return
        }
        deliver(outcome.replies, fault: outcome.fault, broadcast: outcome.broadcast, on: connection)
      }
    }
  }

  /// Sends the replies to one message as its fault (if any) shapes them.
  private func deliver(
    _ replies: [[UInt8]], fault: RelayFault.Action?, broadcast entry: RelayFixtureData.Entry?,
    on connection: FixtureSocket
  ) {
    guard let socket = connection.webSocket else { return }
    switch fault {
    case .closeConnection?:
      return drop(connection)
    case .truncatedBody?:
      let frame = replies.first.flatMap { WebSocketFrameEncoder.textMessage($0, role: .server).first } ?? []
      socket.enqueue(Array(frame.prefix(frame.count / 2)))
      socket.closeWhenFlushed = true
    case .oversizedBody(let bytes, _)?:
      let chunk = WebSocketFrameEncoder.maxFramePayloadBytes
      var offset = 0
      repeat {
        let end = min(max(0, bytes), offset + chunk)
        socket.enqueue(
          WebSocketFrameEncoder.frame(
            opcode: offset == 0 ? .text : .continuation, payload: OutboundResponse.padding(end - offset),
            fin: end >= bytes))
        offset = end
      } while offset < bytes
    default:
      for reply in replies where !socket.enqueueText(reply) { return drop(connection) }
    }
    if let entry { broadcast(entry) }
  }

  private func countSubscriptions() {
    let total = connections.values.reduce(0) { $0 + ($1.webSocket?.session.subscriptions.count ?? 0) }
    if total != subscriptionTotal {
      subscriptionTotal = total
      reportSubscriptions(total)
    }
  }

  /// Sends `entry` to every open subscription that matches it (author-only kinds to their author,
  /// gift wraps to their recipient).
  private func broadcast(_ entry: RelayFixtureData.Entry) {
    for connection in Array(connections.values) {
      guard let socket = connection.webSocket, socket.closingSince == nil else { continue }
      for (subscription, filters) in socket.session.subscriptions
      where filters.contains(where: { $0.matches(entry.event) }) {
        guard WebSocketRelay.isVisible(entry.event, to: socket.session.identity, authorOnly: authorOnly)
        else {
          continue
        }
        if !socket.enqueueText(RelayMessages.event(subscription, json: entry.json)) {
          drop(connection)
          break
        }
      }
      if connections[connection.descriptor] === connection { flushFrames(connection) }
    }
  }

  /// Whether `kind` is author-only (asked of the server through the responder's rules).
  var authorOnly: (Int) -> Bool = { $0 == WebSocketRelay.leaseKind }

  private func flushFrames(_ connection: FixtureSocket) {
    guard let socket = connection.webSocket else { return }
    while let frame = socket.queue.first {
      guard let written = PosixSocket.sendSome(frame, from: socket.sentOfFirst, to: connection.descriptor)
      else { return drop(connection) }
      if written == 0 { return }
      socket.sentOfFirst += written
      if socket.sentOfFirst == frame.count {
        socket.removeFirstFrame()
      }
    }
    if socket.closeWhenFlushed { drop(connection) }
  }

  private func drop(_ connection: FixtureSocket) {
    guard connections.removeValue(forKey: connection.descriptor) != nil else { return }
    close(connection.descriptor)
    reportCount(connections.count)
    if connection.webSocket != nil { countSubscriptions() }
  }
}
