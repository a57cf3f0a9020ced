import Foundation
import NostrPushCore
import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One upgraded WebSocket connection on the server side, over the package's RFC 6455 frame
/// codec (`WebSocketFrameDecoder`, `WebSocketMessageAssembler`, `WebSocketFrameEncoder` in the
/// server role): text messages in, text messages out.
///
/// libmicrohttpd hands the raw socket over after the 101 answer; a thread of this connection's
/// own reads it (blocking `recv`), answers pings, echoes the client's close and closes on a
/// protocol violation with the code it calls for. Writes are blocking sends (bounded by
/// ``sendTimeout``) made off the cooperative pool. The socket goes back to libmicrohttpd (which
/// closes it) once, after the reader ended.
public final class HTTPServerWebSocket: Sendable {
  /// The most received messages held for a handler that does not take them; past it the
  /// connection is closed with 1008.
  public static let maxUndeliveredMessages = 1024
  /// The longest one blocking send may wait for the client to take bytes.
  public static let sendTimeout: Duration = .seconds(5)
  /// How long ``close(code:)`` waits for the client's close before cutting the socket.
  public static let closeTimeout: Duration = .seconds(1)

  private struct Shared {
    var messages: [[UInt8]] = []
    var receiver: CheckedContinuation<[UInt8]?, Never>?
    var readerEnded = false
    var readerEndWaiters: [CheckedContinuation<Void, Never>] = []
    var closeSent = false
    var released = false
  }

  private let descriptor: Int32
  private let leftover: [UInt8]
  private let shared = Locked(Shared())
  /// Held for each whole frame written, so frames never interleave and the socket is never
  /// handed back in the middle of a write.
  private let writeLock = NSLock()
  private let release: @Sendable () -> Void

  init(descriptor: Int32, leftover: [UInt8], release: @escaping @Sendable () -> Void) {
    self.descriptor = descriptor
    self.leftover = leftover
    self.release = release
  }

  /// Starts the reader thread.
  func start() {
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    var timeout = timeval(tv_sec: Int(Self.sendTimeout.wholeMilliseconds / 1000), tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let thread = Thread { [self] in read() }
    thread.name = "NostrHTTPServer WebSocket"
    thread.start()
  }

  /// The next text message, nil once the connection ended (the client closed, a violation, the
  /// server stopping) or the awaiting task was cancelled.
  public func receive() async -> [UInt8]? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8]?, Never>) in
        let ready: [UInt8]?? = shared.withLock { shared in
          if !shared.messages.isEmpty { return .some(shared.messages.removeFirst()) }
          if shared.readerEnded || Task.isCancelled { return .some(nil) }
          shared.receiver = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let waiting = shared.withLock { shared in
        defer { shared.receiver = nil }
        return shared.receiver
      }
      waiting?.resume(returning: nil)
    }
  }

  /// Sends `text` as one text message; `web_socket_closed` once the connection is closing,
  /// `message_too_large` over the codec's message limit.
  public func send(_ text: [UInt8]) async throws(HTTPServerError) {
    guard text.count <= WebSocketFrameEncoder.maxMessageBytes else {
      throw HTTPServerError(
        code: .messageTooLarge, message: "\(text.count) bytes over \(WebSocketFrameEncoder.maxMessageBytes)")
    }
    let frames = WebSocketFrameEncoder.textMessage(text, role: .server)
    let sent = await BlockingWork.run { [self] in write(frames) }
    guard sent else { throw HTTPServerError(code: .webSocketClosed, message: "the connection is closed") }
  }

  /// Sends a close frame with `code` (unless one was sent), waits up to ``closeTimeout`` for the
  /// client's close, then hands the socket back to libmicrohttpd, which closes it.
  public func close(code: UInt16 = 1000) async {
    _ = await BlockingWork.run { [self] in writeClose(code) }
    let ended: Void? = await DeadlineRace.value(by: .now + Self.closeTimeout) { [self] in await readerEnd() }
    if ended == nil { shutdown(descriptor, Int32(SHUT_RDWR)) }
    await readerEnd()
    handBack()
  }

  /// Hands the socket back to libmicrohttpd once, never in the middle of a write.
  private func handBack() {
    writeLock.lock()
    defer { writeLock.unlock() }
    let first = shared.withLock { shared in
      defer { shared.released = true }
      return !shared.released
    }
    if first { release() }
  }

  /// Cuts the socket at once (the server is stopping); the handler's `receive` returns nil.
  func abort() {
    let released = shared.withLock { $0.released }
    if !released { shutdown(descriptor, Int32(SHUT_RDWR)) }
  }

  private func readerEnd() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ended = shared.withLock { shared in
        if shared.readerEnded { return true }
        shared.readerEndWaiters.append(continuation)
        return false
      }
      if ended { continuation.resume() }
    }
  }

  // MARK: The reader thread

  private func read() {
    var decoder = WebSocketFrameDecoder(role: .server)
    var assembler = WebSocketMessageAssembler()
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    decoder.append(leftover)
    reading: while true {
      decoding: while true {
        switch decoder.next() {
        case .needMore: break decoding
        case .violation(let violation):
          writeClose(violation.closeCode)
          break reading
        case .frame(let frame):
          switch assembler.take(frame) {
          case .partial, .pong: continue
          case .ping(let payload):
            _ = write([WebSocketFrameEncoder.control(.pong, payload: payload, role: .server)])
          case .close(let code, _):
            writeClose(
              code.map { WebSocketCloseCode.isValidReceived($0) ? $0 : WebSocketCloseCode.normal }
                ?? WebSocketCloseCode.normal)
            break reading
          case .violation(let violation):
            writeClose(violation.closeCode)
            break reading
          case .text(let message):
            guard deliver(message) else {
              writeClose(WebSocketCloseCode.policyViolation)
              break reading
            }
          }
        }
      }
      let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      decoder.append(scratch[0..<count])
    }
    let (receiver, waiters) = shared.withLock { shared in
      shared.readerEnded = true
      defer {
        shared.receiver = nil
        shared.readerEndWaiters = []
      }
      return (shared.receiver, shared.readerEndWaiters)
    }
    receiver?.resume(returning: nil)
    for waiter in waiters { waiter.resume() }
  }

  /// Hands `message` to a waiting receiver or queues it; false past the queue's bound.
  private func deliver(_ message: [UInt8]) -> Bool {
    let outcome = shared.withLock { shared -> (CheckedContinuation<[UInt8]?, Never>?, Bool) in
      if let receiver = shared.receiver {
        shared.receiver = nil
        return (receiver, true)
      }
      guard shared.messages.count < Self.maxUndeliveredMessages else { return (nil, false) }
      shared.messages.append(message)
      return (nil, true)
    }
    outcome.0?.resume(returning: message)
    return outcome.1
  }

  // MARK: Writing

  private func writeClose(_ code: UInt16) {
    let first = shared.withLock { shared in
      defer { shared.closeSent = true }
      return !shared.closeSent
    }
    if first { _ = write([WebSocketFrameEncoder.close(code: code, role: .server)], evenAfterClose: true) }
  }

  /// Writes `frames` whole; false when the socket failed, was handed back, or (for data) a close
  /// was sent.
  private func write(_ frames: [[UInt8]], evenAfterClose: Bool = false) -> Bool {
    writeLock.lock()
    defer { writeLock.unlock() }
    let refused = shared.withLock { $0.released || (!evenAfterClose && $0.closeSent) }
    if refused { return false }
    for frame in frames {
      var offset = 0
      while offset < frame.count {
        let written = frame.withUnsafeBytes {
          socketSend(descriptor, $0.baseAddress! + offset, frame.count - offset)
        }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
      }
    }
    return true
  }
}

/// `send(2)` without `SIGPIPE` (the flag on Linux; Darwin sockets ignore it by `SO_NOSIGPIPE`).
private func socketSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
  return send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
  #else
  return send(descriptor, bytes, count, 0)
  #endif
}
