import Dispatch
import Foundation
import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP client for what URLSession hides: partial writes, trickling, truncated answers.
///
/// `@unchecked Sendable`: each test uses its connection from one task at a time.
final class RawConnection: @unchecked Sendable {
  private let descriptor: Int32

  /// Connects to `127.0.0.1:port`, or `[::1]:port` when `ipv6` is set.
  init(port: Int, ipv6: Bool = false) throws {
    #if canImport(Glibc)
    descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    descriptor = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
    #endif
    let result: Int32
    if ipv6 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = UInt16(port).bigEndian
      address.sin6_addr = in6addr_loopback
      result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = UInt16(port).bigEndian
      address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
      result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    }
    // Not closed here: every stored property is set, so a throw from here on runs `deinit`, which
    // closes it. Closing it here as well closed the descriptor twice, and the second close could
    // hit a number another test had just been given (a listener or a connection of a fixture
    // running beside this test), which lost that test's requests or refused its connections.
    guard result == 0 else { throw RawConnectionError.connectFailed(errno) }
  }

  deinit {
    close(descriptor)
  }

  /// Sends `text`; false when the peer has gone away.
  @discardableResult
  func send(_ text: String) -> Bool {
    send(Array(text.utf8))
  }

  /// Sends `bytes`; false when the peer has gone away.
  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    #if canImport(Glibc)
    let flags = Int32(MSG_NOSIGNAL)
    #else
    let flags: Int32 = 0
    #endif
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes {
        systemSend(descriptor, $0.baseAddress! + offset, bytes.count - offset, flags)
      }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Whether bytes (or the end of the stream) are waiting to be read.
  func isReadable(timeoutMilliseconds: Int32 = 0) -> Bool {
    var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
    return poll(&descriptors, 1, timeoutMilliseconds) > 0
  }

  /// Reads until the peer closes, `limit` bytes arrived, or nothing arrives for `idleMilliseconds`;
  /// `closed` says whether the peer closed. Blocks a thread of `BlockingWork`, never the
  /// cooperative pool.
  func readUntilClose(limit: Int = 64 * 1024 * 1024, idleMilliseconds: Int32 = 5000) async -> (
    bytes: [UInt8], closed: Bool
  ) {
    await BlockingWork.run { self.readBlocking(limit: limit, idleMilliseconds: idleMilliseconds) }
  }

  private func readBlocking(limit: Int = 64 * 1024 * 1024, idleMilliseconds: Int32 = 5000) -> (
    bytes: [UInt8], closed: Bool
  ) {
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while received.count < limit {
      guard isReadable(timeoutMilliseconds: idleMilliseconds) else { return (received, false) }
      let capacity = chunk.count
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, capacity, 0) }
      if count <= 0 { return (received, true) }
      received += chunk[0..<count]
    }
    return (received, false)
  }
}

/// Why a raw connection failed.
enum RawConnectionError: Error {
  case connectFailed(Int32)
}

/// A response read off a raw connection: status, header fields and what followed them.
struct RawResponse {
  var status: Int
  var headers: [String: String]
  var body: [UInt8]

  /// Splits `bytes` into head and body; nil when there is no complete head.
  init?(_ bytes: [UInt8]) {
    let terminator: [UInt8] = [13, 10, 13, 10]
    guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == terminator })
    else { return nil }
    let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
    let parts = lines[0].split(separator: " ")
    guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
    self.status = status
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
        in: .whitespaces)
    }
    self.headers = headers
    self.body = Array(bytes[(end + 4)...])
  }
}

private func systemSend(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int
{
  send(descriptor, pointer, count, flags)
}
