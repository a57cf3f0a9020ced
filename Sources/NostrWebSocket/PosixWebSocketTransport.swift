import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `ws://` client: RFC 6455 over a non-blocking POSIX socket, on a thread of its own.
///
/// Name lookup, connect, handshake and all I/O run on the connection's thread, which polls the
/// socket and a wake pipe; async callers only queue frames and wait for messages, so nothing
/// blocks the cooperative pool. The thread answers pings before the next queued frame, sends
/// the close frame a violation calls for, echoes the server's close, and ends the connection on
/// end of stream. `close()` sends close 1000 and waits at most `closeTimeout`.
package final class PosixWebSocketTransport: WebSocketTransport, @unchecked Sendable {
  /// The size of one `recv()`.
  static let readChunkBytes = 64 * 1024
  /// The most received messages held for a receiver that does not take them; past it the
  /// connection is closed (`protocol_violation`), so a hostile relay cannot grow the client.
  public static let maxUndeliveredMessages = 10_000

  private struct Shared {
    var outgoing: [[UInt8]] = []
    var messages: [[UInt8]] = []
    var receiver: (id: UInt64, continuation: CheckedContinuation<[UInt8], any Error>)?
    var nextReceiverID: UInt64 = 0
    var ending: RelayConnectionError?
    var closeRequested = false
    /// The earliest deadline a `close(by:)` gave: the close handshake waits no longer.
    var closeBy: ContinuousClock.Instant?
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
    var finished = false
    var connectCancelled = false
    var connectResult: CheckedContinuation<Void, any Error>?
  }

  private let url: WebSocketURL
  private let deadline: ContinuousClock.Instant
  private let shared = Locked(Shared())
  private let wake: (read: Int32, write: Int32)

  private init(url: WebSocketURL, deadline: ContinuousClock.Instant, wake: (read: Int32, write: Int32)) {
    self.url = url
    self.deadline = deadline
    self.wake = wake
  }

  deinit {
    closeDescriptor(wake.read)
    closeDescriptor(wake.write)
  }

  /// Connects to `url` (which must be `ws`): TCP within `connectTimeout`, the handshake within
  /// `handshakeTimeout`, both within `deadline`; `cancelled` at once when the task is cancelled.
  package static func connect(
    to url: WebSocketURL, deadline: ContinuousClock.Instant
  ) async throws(RelayConnectionError) -> PosixWebSocketTransport {
    guard !url.isSecure else {
      throw RelayConnectionError(code: .unsupportedScheme, message: "the POSIX client speaks ws:// only")
    }
    guard let wake = PosixSocket.makePipe(nonBlocking: true) else {
      throw RelayConnectionError(code: .unreachable, message: "pipe(): \(PosixSocket.lastError)")
    }
    let transport = PosixWebSocketTransport(url: url, deadline: deadline, wake: wake)
    do {
      try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
          let cancelled = transport.shared.withLock { shared in
            shared.connectResult = continuation
            return shared.connectCancelled
          }
          if cancelled {
            transport.shared.withLock { $0.connectResult = nil }
            continuation.resume(throwing: RelayConnectionError(code: .cancelled, message: "connect"))
            return
          }
          let thread = Thread { transport.run() }
          thread.name = "NostrWebSocket \(url.hostHeader)"
          thread.start()
        }
      } onCancel: {
        transport.shared.withLock { $0.connectCancelled = true }
        transport.signal()
      }
    } catch let error as RelayConnectionError {
      throw error
    } catch {
      throw RelayConnectionError(code: .unreachable, message: "\(error)")
    }
    return transport
  }

  /// Queues `text` as masked frames for the connection's thread; returns once queued, since the
  /// thread writes in order and reports a failed write as the connection's end.
  package func send(_ text: [UInt8]) async throws(RelayConnectionError) {
    guard text.count <= WebSocketFrameEncoder.maxMessageBytes else {
      throw RelayConnectionError(
        code: .messageTooLarge,
        message: "message of \(text.count) bytes over the \(WebSocketFrameEncoder.maxMessageBytes)-byte limit"
      )
    }
    let frames = WebSocketFrameEncoder.textMessage(text, role: .client)
    let ending: RelayConnectionError? = shared.withLock { shared in
      if let ending = shared.ending { return ending }
      if shared.closeRequested {
        return RelayConnectionError(code: .connectionClosed, message: "1000 closed by us")
      }
      shared.outgoing.append(contentsOf: frames)
      return nil
    }
    if let ending { throw ending }
    signal()
  }

  /// How the connection ended, nil while it is open: what a test reads to see a bound enforced.
  package var endedWith: RelayConnectionError? { shared.withLock { $0.ending } }

  /// The next text message the thread assembled; `cancelled` when the awaiting task is cancelled
  /// (the message stays queued for the next call).
  package func receive() async throws(RelayConnectionError) -> [UInt8] {
    let id = shared.withLock { shared in
      shared.nextReceiverID += 1
      return shared.nextReceiverID
    }
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
          let immediate: Result<[UInt8], RelayConnectionError>? = shared.withLock { shared in
            if !shared.messages.isEmpty { return .success(shared.messages.removeFirst()) }
            if let ending = shared.ending { return .failure(ending) }
            if Task.isCancelled {
              return .failure(RelayConnectionError(code: .cancelled, message: "receive"))
            }
            shared.receiver = (id, continuation)
            return nil
          }
          if let immediate { continuation.resume(with: immediate.mapError { $0 as any Error }) }
        }
      } onCancel: {
        let waiting = shared.withLock { shared -> CheckedContinuation<[UInt8], any Error>? in
          guard let receiver = shared.receiver, receiver.id == id else { return nil }
          shared.receiver = nil
          return receiver.continuation
        }
        waiting?.resume(throwing: RelayConnectionError(code: .cancelled, message: "receive"))
      }
    } catch let error as RelayConnectionError {
      throw error
    } catch {
      throw RelayConnectionError(code: .connectionClosed, message: "\(error)")
    }
  }

  /// Sends close 1000 and returns once the thread has closed the socket (the server's close,
  /// end of stream, `closeTimeout` or `deadline`, whichever comes first; a deadline already past
  /// still sends the close frame if the socket takes it at once).
  package func close(by deadline: ContinuousClock.Instant) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done = shared.withLock { shared in
        if shared.finished { return true }
        shared.closeRequested = true
        shared.closeBy = min(shared.closeBy ?? deadline, deadline)
        shared.closeWaiters.append(continuation)
        return false
      }
      if done { continuation.resume() } else { signal() }
    }
  }

  /// Asks for the close handshake without waiting for it (used from deinitialisers).
  package func closeWithoutWaiting() {
    let done = shared.withLock { shared in
      if !shared.finished { shared.closeRequested = true }
      return shared.finished
    }
    if !done { signal() }
  }

  private func signal() {
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
  }

  private func drainWake() {
    var scratch = [UInt8](repeating: 0, count: 64)
    while read(wake.read, &scratch, scratch.count) > 0 {}
  }

  // MARK: The connection's thread

  private func run() {
    var socket: Int32 = -1
    var leftover: [UInt8] = []
    switch open(into: &socket, leftover: &leftover) {
    case .failure(let error):
      if socket >= 0 { closeDescriptor(socket) }
      let continuation = shared.withLock { shared in
        shared.finished = true
        shared.ending = error
        defer { shared.connectResult = nil }
        return shared.connectResult
      }
      continuation?.resume(throwing: error)
      return
    case .success:
      let continuation = shared.withLock { shared in
        defer { shared.connectResult = nil }
        return shared.connectResult
      }
      continuation?.resume()
    }
    serve(socket, leftover: leftover)
    closeDescriptor(socket)
    let (waiters, receiver, ending) = shared.withLock { shared in
      shared.finished = true
      if shared.ending == nil {
        shared.ending = RelayConnectionError(code: .connectionClosed, message: "1000 closed by us")
      }
      let waiters = shared.closeWaiters
      shared.closeWaiters = []
      let receiver = shared.receiver
      shared.receiver = nil
      return (waiters, receiver, shared.ending!)
    }
    receiver?.continuation.resume(throwing: ending)
    for waiter in waiters { waiter.resume() }
  }

  private enum Wait { case ready, woken, timedOut }

  /// Polls `socket` for `events` and the wake pipe until `deadline`.
  private func wait(_ socket: Int32, _ events: Int16, until deadline: ContinuousClock.Instant) -> Wait {
    while true {
      var descriptors = [
        pollfd(fd: socket, events: events, revents: 0),
        pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&descriptors, 2, PosixSocket.pollTimeout(until: deadline))
      if ready < 0, errno == EINTR { continue }
      if ready <= 0 { return ContinuousClock.now >= deadline ? .timedOut : .ready }
      if descriptors[1].revents != 0 {
        drainWake()
        return .woken
      }
      return .ready
    }
  }

  private var connectCancelled: Bool { shared.withLock { $0.connectCancelled } }

  private func open(into socket: inout Int32, leftover: inout [UInt8]) -> Result<Void, RelayConnectionError> {
    let start = ContinuousClock.now
    let connectDeadline = min(deadline, start.advanced(by: WebSocketTimeouts.connectTimeout))
    let addresses: [[UInt8]]
    switch PosixSocket.resolve(host: url.host, port: url.effectivePort) {
    case .success(let found): addresses = found
    case .failure(let failure):
      return .failure(
        RelayConnectionError(code: .unreachable, message: "name lookup for \(url.host): \(failure.message)"))
    }
    var lastFailure = "no address"
    connecting: for address in addresses {
      if connectCancelled { return .failure(RelayConnectionError(code: .cancelled, message: "connect")) }
      switch PosixSocket.startConnect(to: address) {
      case .failure(let failure):
        lastFailure = failure.message
        continue
      case .success(let started):
        socket = started.descriptor
        if started.done { break connecting }
        while true {
          switch wait(socket, Int16(POLLOUT), until: connectDeadline) {
          case .timedOut:
            return .failure(RelayConnectionError(code: .timeout, message: "connect to \(url.hostHeader)"))
          case .woken:
            if connectCancelled {
              return .failure(RelayConnectionError(code: .cancelled, message: "connect"))
            }
            continue
          case .ready:
            let error = PosixSocket.pendingError(socket)
            if error == 0 { break connecting }
            lastFailure = String(cString: strerror(error))
            closeDescriptor(socket)
            socket = -1
            continue connecting
          }
        }
      }
    }
    guard socket >= 0 else {
      return .failure(
        RelayConnectionError(code: .unreachable, message: "connect to \(url.hostHeader): \(lastFailure)"))
    }
    let handshakeDeadline = min(
      deadline, ContinuousClock.now.advanced(by: WebSocketTimeouts.handshakeTimeout))
    let key = WebSocketHandshake.makeKey()
    let request = WebSocketHandshake.request(for: url, key: key)
    var sent = 0
    while sent < request.count {
      let written = request.withUnsafeBytes {
        PosixSocket.sendSome($0.baseAddress! + sent, count: request.count - sent, to: socket)
      }
      guard let written else {
        return .failure(RelayConnectionError(code: .connectionClosed, message: "1006 during the handshake"))
      }
      sent += written
      if sent < request.count {
        switch wait(socket, Int16(POLLOUT), until: handshakeDeadline) {
        case .timedOut: return .failure(RelayConnectionError(code: .timeout, message: "handshake"))
        case .woken where connectCancelled:
          return .failure(RelayConnectionError(code: .cancelled, message: "handshake"))
        default: continue
        }
      }
    }
    var received: [UInt8] = []
    var scratch = [UInt8](repeating: 0, count: WebSocketHandshake.maxHandshakeResponseBytes)
    while true {
      let count = scratch.withUnsafeMutableBytes { PosixSocket.receiveSome($0, from: socket) }
      if let count {
        guard count > 0 else {
          return .failure(
            RelayConnectionError(
              code: .handshakeFailed, message: "connection ended before the handshake answer"))
        }
        received.append(contentsOf: scratch[0..<count])
        do {
          if let headLength = try WebSocketHandshake.responseHeadLength(in: received) {
            try WebSocketHandshake.validateResponse(head: Array(received[0..<headLength]), key: key)
            leftover = Array(received[headLength...])
            return .success(())
          }
        } catch {
          return .failure(error)
        }
        continue
      }
      switch wait(socket, Int16(POLLIN), until: handshakeDeadline) {
      case .timedOut: return .failure(RelayConnectionError(code: .timeout, message: "handshake"))
      case .woken where connectCancelled:
        return .failure(RelayConnectionError(code: .cancelled, message: "handshake"))
      default: continue
      }
    }
  }

  /// The open connection's state, owned by its thread.
  private final class Wire {
    var decoder = WebSocketFrameDecoder(role: .client)
    var assembler = WebSocketMessageAssembler()
    var control: [[UInt8]] = []
    var data: [[UInt8]] = []
    var writing: [UInt8] = []
    var written = 0
    var closeSent = false
    var closeDeadline: ContinuousClock.Instant?
    var endAfterFlush = false

    func startClose(code: UInt16, reason: String, by deadline: ContinuousClock.Instant? = nil) {
      guard !closeSent else { return }
      closeSent = true
      control.append(WebSocketFrameEncoder.close(code: code, reason: reason, role: .client))
      let timeout = ContinuousClock.now.advanced(by: WebSocketTimeouts.closeTimeout)
      closeDeadline = deadline.map { min($0, timeout) } ?? timeout
    }
  }

  /// Records `error` as the end of the connection and fails a waiting receiver with it.
  private func end(_ error: RelayConnectionError) {
    let (receiver, ending) = shared.withLock {
      shared -> (CheckedContinuation<[UInt8], any Error>?, RelayConnectionError) in
      if shared.ending == nil { shared.ending = error }
      defer { shared.receiver = nil }
      return (shared.receiver?.continuation, shared.ending!)
    }
    receiver?.resume(throwing: ending)
  }

  /// The open connection's loop: returns when the socket is to be closed.
  private func serve(_ socket: Int32, leftover: [UInt8]) {
    let wire = Wire()
    var scratch = [UInt8](repeating: 0, count: Self.readChunkBytes)
    wire.decoder.append(leftover)
    var pendingInput = !leftover.isEmpty

    while true {
      let (closeRequested, closeBy) = shared.withLock { shared in
        wire.data.append(contentsOf: shared.outgoing)
        shared.outgoing = []
        return (shared.closeRequested, shared.closeBy)
      }
      if closeRequested && !wire.closeSent {
        wire.startClose(code: WebSocketCloseCode.normal, reason: "", by: closeBy)
        end(RelayConnectionError(code: .connectionClosed, message: "1000 closed by us"))
      }
      if pendingInput {
        pendingInput = false
        if !process(wire) { return }
      }
      // Write what can be written: control frames go before the next data frame.
      while true {
        if wire.written == wire.writing.count {
          wire.writing = []
          wire.written = 0
          if !wire.control.isEmpty {
            wire.writing = wire.control.removeFirst()
          } else if !wire.data.isEmpty, !wire.closeSent {
            wire.writing = wire.data.removeFirst()
          } else {
            break
          }
        }
        let offset = wire.written
        let count = wire.writing.withUnsafeBytes {
          PosixSocket.sendSome($0.baseAddress! + offset, count: $0.count - offset, to: socket)
        }
        guard let count else {
          end(RelayConnectionError(code: .connectionClosed, message: "1006 socket ended"))
          return
        }
        if count == 0 { break }
        wire.written += count
      }
      let flushed = wire.written == wire.writing.count && wire.control.isEmpty
      if wire.endAfterFlush, flushed { return }
      if let closeDeadline = wire.closeDeadline, ContinuousClock.now >= closeDeadline { return }
      var events = Int16(POLLIN)
      if !flushed || (!wire.data.isEmpty && !wire.closeSent) { events |= Int16(POLLOUT) }
      var descriptors = [
        pollfd(fd: socket, events: events, revents: 0),
        pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&descriptors, 2, wire.closeDeadline.map { PosixSocket.pollTimeout(until: $0) } ?? -1)
      if ready < 0 {
        if errno == EINTR { continue }
        end(RelayConnectionError(code: .connectionClosed, message: "1006 poll(): \(PosixSocket.lastError)"))
        return
      }
      if descriptors[1].revents != 0 { drainWake() }
      if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        var ended = false
        while true {
          let count = scratch.withUnsafeMutableBytes { PosixSocket.receiveSome($0, from: socket) }
          guard let count else { break }
          if count <= 0 {
            ended = true
            break
          }
          wire.decoder.append(scratch[0..<count])
          if !process(wire) { return }
          if count < scratch.count { break }
        }
        if ended {
          end(
            RelayConnectionError(
              code: .connectionClosed, message: "1006 connection ended without a close frame"))
          return
        }
      }
    }
  }

  /// Takes every complete frame out of the decoder; false when the socket is to be closed now.
  private func process(_ wire: Wire) -> Bool {
    while !wire.endAfterFlush {
      let outcome: WebSocketMessageAssembler.Outcome
      switch wire.decoder.next() {
      case .needMore: return true
      case .violation(let violation): outcome = .violation(violation)
      case .frame(let frame): outcome = wire.assembler.take(frame)
      }
      switch outcome {
      case .partial, .pong: continue
      case .ping(let payload):
        if !wire.closeSent {
          // Pongs coalesce: only the latest unanswered ping is answered, so a relay flooding
          // pings costs one queued pong.
          let pong = WebSocketFrameEncoder.control(.pong, payload: payload, role: .client)
          if let queued = wire.control.lastIndex(where: { $0.first == 0x8A }) {
            wire.control[queued] = pong
          } else {
            wire.control.append(pong)
          }
        }
      case .text(let message):
        var overflow = false
        let receiver = shared.withLock { shared -> CheckedContinuation<[UInt8], any Error>? in
          guard let receiver = shared.receiver else {
            if shared.messages.count >= Self.maxUndeliveredMessages {
              overflow = true
            } else {
              shared.messages.append(message)
            }
            return nil
          }
          shared.receiver = nil
          return receiver.continuation
        }
        receiver?.resume(returning: message)
        if overflow {
          let reason = "more than \(Self.maxUndeliveredMessages) undelivered messages"
          end(RelayConnectionError(code: .protocolViolation, message: reason))
          if wire.closeSent { return false }
          wire.startClose(code: WebSocketCloseCode.policyViolation, reason: reason)
          wire.endAfterFlush = true
        }
      case .close(let code, let reason):
        if wire.closeSent { return false }
        end(RelayConnectionError(code: .connectionClosed, message: "\(code ?? 1005) \(reason)"))
        wire.startClose(code: code ?? WebSocketCloseCode.normal, reason: "")
        wire.endAfterFlush = true
      case .violation(let violation):
        end(violation.error)
        if wire.closeSent { return false }
        wire.startClose(code: violation.closeCode, reason: violation.message)
        wire.endAfterFlush = true
      }
    }
    return true
  }
}

private func closeDescriptor(_ descriptor: Int32) {
  _ = close(descriptor)
}
