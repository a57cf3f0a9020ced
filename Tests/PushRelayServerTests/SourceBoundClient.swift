import Foundation
import NostrPushCore
import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking loopback client whose socket is bound to a chosen source address (127.0.0.2, …),
/// so one test can be several client addresses: plain HTTP requests and a WebSocket spoken
/// frame by frame (pings included) over the package's frame codec in the client role. Every
/// read is bounded by `SO_RCVTIMEO`, so a server that never answers fails the test instead of
/// hanging it. Run its calls through `BlockingWork`.
final class SourceBoundClient: @unchecked Sendable {
  // `@unchecked Sendable`: a test uses one client from one task at a time.

  /// What one read of the WebSocket came to.
  enum Received: Sendable, Equatable {
    case text(String)
    case pong
    case close(UInt16?)
    /// The server ended the connection without a close frame.
    case ended
    case timedOut
  }

  let descriptor: Int32
  private var decoder = WebSocketFrameDecoder(role: .client)
  private var assembler = WebSocketMessageAssembler()
  private var leftover: [UInt8] = []

  /// Connects from `source` to `127.0.0.1:port`, each read waiting at most `readTimeout`; nil
  /// when the bind or the connect failed.
  init?(from source: String, port: UInt16, readTimeout: Duration = .seconds(10)) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return nil }
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    local.sin_addr.s_addr = inet_addr(source)
    var remote = sockaddr_in()
    remote.sin_family = sa_family_t(AF_INET)
    remote.sin_addr.s_addr = inet_addr("127.0.0.1")
    remote.sin_port = port.bigEndian
    let size = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) }
    }
    let connected =
      bound == 0
      && withUnsafePointer(to: &remote) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, size) }
      } == 0
    guard connected else {
      close(socket)
      return nil
    }
    let milliseconds = readTimeout.wholeMilliseconds
    var timeout = timeval(tv_sec: Int(milliseconds / 1000), tv_usec: Int(milliseconds % 1000) * 1000)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var one: Int32 = 1
    setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    descriptor = socket
  }

  deinit { close(descriptor) }

  /// Sends `bytes` whole; false when the connection failed.
  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  /// Some bytes, nil when the peer closed or the read timed out (`timedOut` tells which).
  private func read() -> (bytes: [UInt8]?, timedOut: Bool) {
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count > 0 { return (Array(scratch[0..<count]), false) }
      if count < 0, errno == EINTR { continue }
      return (nil, count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    }
  }

  /// `GET /` with `Accept: application/nostr+json` on a fresh connection; the status line, or
  /// what went wrong.
  func informationStatus() -> String {
    let request =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/nostr+json\r\nConnection: close\r\n\r\n"
    guard send(Array(request.utf8)) else { return "send failed" }
    guard let bytes = read().bytes else { return "no answer" }
    return String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
  }

  /// The WebSocket opening handshake on `/`; whether the server switched protocols.
  func upgrade() -> Bool {
    let key = WebSocketHandshake.makeKey()
    guard let url = try? WebSocketURL("ws://127.0.0.1/"),
      send(WebSocketHandshake.request(for: url, key: key))
    else { return false }
    var head: [UInt8] = []
    while true {
      guard let bytes = read().bytes else { return false }
      head += bytes
      let found: Int??
      do {
        found = try WebSocketHandshake.responseHeadLength(in: head)
      } catch {
        found = nil
      }
      guard let found else { return false }
      guard let length = found else { continue }
      guard (try? WebSocketHandshake.validateResponse(head: Array(head[..<length]), key: key)) != nil else {
        return false
      }
      leftover = Array(head[length...])
      decoder.append(leftover)
      return true
    }
  }

  /// Sends `text` as one masked text message.
  @discardableResult
  func sendText(_ text: String) -> Bool {
    var sent = true
    for frame in WebSocketFrameEncoder.textMessage(Array(text.utf8), role: .client) {
      sent = sent && send(frame)
    }
    return sent
  }

  /// Sends a ping.
  @discardableResult
  func ping() -> Bool { send(WebSocketFrameEncoder.control(.ping, payload: Array("p".utf8), role: .client)) }

  /// The next text message, pong or close from the server.
  func receive() -> Received {
    while true {
      switch decoder.next() {
      case .violation: return .ended
      case .frame(let frame):
        switch assembler.take(frame) {
        case .partial, .ping: continue
        case .pong: return .pong
        case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
        case .close(let code, _): return .close(code)
        case .violation: return .ended
        }
      case .needMore:
        let (bytes, timedOut) = read()
        guard let bytes else { return timedOut ? .timedOut : .ended }
        decoder.append(bytes)
      }
    }
  }

  /// Text messages until one satisfies `done` (included), or the connection ends or times out
  /// (the last element then says how).
  func texts(until done: (String) -> Bool) -> [Received] {
    var got: [Received] = []
    while true {
      let next = receive()
      if case .pong = next { continue }
      got.append(next)
      guard case .text(let text) = next, !done(text) else { return got }
    }
  }
}
