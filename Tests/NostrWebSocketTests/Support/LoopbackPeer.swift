import Dispatch
import Foundation
import NostrPushCore
import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One raw TCP end on loopback for frame-rule tests: a scripted server the client connects to, or
/// a raw client of the fixture. Blocking calls run through `BlockingWork` with a deadline.
///
/// `@unchecked Sendable`: each test drives its peer from one task at a time.
final class LoopbackPeer: @unchecked Sendable {
  private var descriptor: Int32
  /// Bytes read but not yet taken.
  private var pending: [UInt8] = []

  private init(descriptor: Int32) { self.descriptor = descriptor }

  deinit { if descriptor >= 0 { close(descriptor) } }

  /// A listening socket on 127.0.0.1 and its port.
  static func listen() throws -> (listener: Int32, port: Int) {
    let listener = socket(AF_INET, PosixSocket.streamType, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(listener, pointer, length) == 0 && sysListen(listener, 8) == 0
          && getsockname(listener, pointer, &length) == 0
      }
    }
    guard bound else { throw PeerError.socket }
    return (listener, Int(UInt16(bigEndian: address.sin_port)))
  }

  /// Accepts one connection on `listener` (closing the listener).
  static func accept(_ listener: Int32) async throws -> LoopbackPeer {
    let descriptor = await blocking { () -> Int32 in
      var descriptors = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
      guard poll(&descriptors, 1, 10_000) > 0 else { return -1 }
      return sysAccept(listener, nil, nil)
    }
    close(listener)
    guard descriptor >= 0 else { throw PeerError.socket }
    return LoopbackPeer(descriptor: descriptor)
  }

  /// Connects to 127.0.0.1:`port`.
  static func connect(port: Int) throws -> LoopbackPeer {
    let descriptor = socket(AF_INET, PosixSocket.streamType, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        sysConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      close(descriptor)
      throw PeerError.socket
    }
    return LoopbackPeer(descriptor: descriptor)
  }

  /// Closes the socket now (the other end sees end of stream).
  func shutdownNow() {
    if descriptor >= 0 { close(descriptor) }
    descriptor = -1
  }

  /// Sends every byte (false when the peer is gone).
  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes {
        PosixSocket.sendSome($0.baseAddress! + offset, count: bytes.count - offset, to: descriptor)
      }
      guard let count else { return false }
      if count == 0 {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
        _ = poll(&descriptors, 1, 1000)
      }
      offset += count
    }
    return true
  }

  /// Reads until `done` says the bytes so far are enough (it returns how many to take), the
  /// peer closes or 10 s pass; nil on close or timeout.
  func read(within limit: Duration = .seconds(10), until done: @escaping @Sendable ([UInt8]) -> Int?) async
    -> [UInt8]?
  {
    let descriptor = descriptor
    let start = pending
    let result = await Self.blocking { () -> ([UInt8]?, [UInt8]) in
      var received = start
      let deadline = ContinuousClock.now.advanced(by: limit)
      var chunk = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        if let count = done(received) { return (Array(received[0..<count]), Array(received[count...])) }
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        guard poll(&descriptors, 1, PosixSocket.pollTimeout(until: deadline)) > 0 else {
          return (nil, received)
        }
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return (nil, received) }
        received += chunk[0..<count]
      }
    }
    pending = result.1
    return result.0
  }

  /// Reads an HTTP head (through the blank line).
  func readHead() async -> String? {
    await read { bytes in (try? WebSocketHandshake.responseHeadLength(in: bytes)) ?? nil }.map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  /// Reads one frame in `role` (the role of the reader: a server reads masked frames).
  func readFrame(as role: WebSocketRole, within limit: Duration = .seconds(10)) async -> WebSocketFrame? {
    guard
      let bytes = await read(
        within: limit,
        until: { bytes in
          var decoder = WebSocketFrameDecoder(role: role, maxFramePayloadBytes: 64 * 1024 * 1024)
          decoder.append(bytes)
          guard case .frame = decoder.next() else { return nil }
          return bytes.count - decoder.bufferedCount
        })
    else { return nil }
    var decoder = WebSocketFrameDecoder(role: role, maxFramePayloadBytes: 64 * 1024 * 1024)
    decoder.append(bytes)
    guard case .frame(let frame) = decoder.next() else { return nil }
    return frame
  }

  /// Reads frames until one with `opcode` (nil when the connection ends first).
  func readFrame(_ opcode: WebSocketOpcode, as role: WebSocketRole) async -> WebSocketFrame? {
    while let frame = await readFrame(as: role) {
      if frame.opcode == opcode { return frame }
    }
    return nil
  }

  /// Whether the peer closes within 10 s (reading and discarding what comes first).
  func waitForClose() async -> Bool {
    await read { _ in nil } == nil && pending.count >= 0
  }

  /// As a scripted server: reads the client's handshake and answers 101 with the right accept
  /// value (or `answer` verbatim when given).
  func acceptHandshake(answer: String? = nil) async -> Bool {
    guard let head = await readHead(),
      let keyLine = head.components(separatedBy: "\r\n").first(where: {
        $0.lowercased().hasPrefix("sec-websocket-key:")
      })
    else { return false }
    let key = keyLine.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces)
    let text =
      answer
      ?? "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(for: key))\r\n\r\n"
    return send(Array(text.utf8))
  }

  /// As a raw client of `host:port`: sends an upgrade request and reads the 101.
  func clientHandshake(port: Int) async -> Bool {
    let key = WebSocketHandshake.makeKey()
    let request =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: \(key)\r\n\r\n"
    guard send(Array(request.utf8)), let head = await readHead() else { return false }
    return head.hasPrefix("HTTP/1.1 101") && head.contains(WebSocketHandshake.acceptValue(for: key))
  }

  /// `body` through `BlockingWork`, on a thread of its own: not on the cooperative pool, and not
  /// on the global queue's few threads, which Foundation's networking shares.
  private static func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await BlockingWork.run(body)
  }
}

/// A loopback socket call failed.
enum PeerError: Error {
  case socket
}

private func sysListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { listen(descriptor, backlog) }
private func sysAccept(
  _ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?
) -> Int32 {
  accept(descriptor, address, length)
}
private func sysConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32
{
  connect(descriptor, address, length)
}
