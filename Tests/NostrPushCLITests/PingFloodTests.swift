import Foundation
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A client that floods pings and never reads costs the relay one queued
/// pong, so the `nostr-push relay` process stays within 8 MiB of its idle size.
@Suite(.timeLimit(.minutes(2))) struct PingFloodTests {
  /// The bytes of pings sent: several times the 8 MiB bound, so uncoalesced pongs would show.
  static let floodBytes = 48 * 1024 * 1024
  /// The slack the spec allows over the idle resident size.
  static let allowedGrowth = 8 * 1024 * 1024

  @Test func keepsTheRelayWithin8MiBOfIdleUnderAPingFloodWithoutReading() async throws {
    #if os(Linux)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ping-flood-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data(#"{"name":"ping flood"}"#.utf8).write(to: folder.appendingPathComponent("nip11.json"))
    guard
      let (process, line) = try await NostrPushBinary.startServer([
        "relay", "--data", folder.path, "--port", "0",
      ])
    else {
      Issue.record("nostr-push was not built")
      return
    }
    defer { process.send(SIGKILL) }
    let origin = try #require(try JSONReader().read(line).objectValue?["listening"]?.stringValue)
    let port = try #require(UInt16(origin.split(separator: ":").last ?? ""))
    let socket = try #require(Self.connect(port: port))
    defer { close(socket) }
    let upgrade =
      "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    // The socket work blocks (the relay reads at its own pace), so it runs off the cooperative pool.
    let flood = await BlockingWork.run { () -> (idle: Int?, count: Int, upgraded: Bool) in
      guard Self.sendAll(socket, Array(upgrade.utf8)) else { return (nil, 0, false) }
      // Read the 101 head only; from now on nothing is read.
      var head: [UInt8] = []
      var byte: UInt8 = 0
      while !head.ends(with: [13, 10, 13, 10]), recv(socket, &byte, 1, 0) == 1 { head.append(byte) }
      let upgraded = String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101")
      let idle = Self.residentBytes(of: process.processIdentifier)
      // Masked pings of 125 bytes, each payload different within a 1 MiB chunk sent again and again.
      let mask: [UInt8] = [1, 2, 3, 4]
      var chunk: [UInt8] = []
      chunk.reserveCapacity(1024 * 1024 + 131)
      var perChunk = 0
      while chunk.count < 1024 * 1024 {
        chunk += [0x89, 0x80 | 125] + mask
        for index in 0..<125 { chunk.append(UInt8(truncatingIfNeeded: index &+ perChunk) ^ mask[index % 4]) }
        perChunk += 1
      }
      var count = 0
      while count * 131 < Self.floodBytes, Self.sendAll(socket, chunk) { count += perChunk }
      return (idle, count, upgraded)
    }
    #expect(flood.upgraded)
    let idle = try #require(flood.idle)
    let count = flood.count
    #expect(count * 131 >= Self.floodBytes, "the relay stopped taking pings after \(count)")
    // Every byte reached the relay once our send queue is empty (SIOCOUTQ).
    let drained = await Polling.eventually(within: .seconds(60), every: .milliseconds(10)) {
      var queued: Int32 = 0
      return ioctl(socket, UInt(0x5411), &queued) == 0 && queued == 0
    }
    #expect(drained)
    let flooded = try #require(Self.residentBytes(of: process.processIdentifier))
    #expect(flooded < idle + Self.allowedGrowth, "idle \(idle) bytes, after \(count) pings \(flooded) bytes")
    #endif
  }

  // The helpers below use Linux's socket and /proc shapes; the test runs on Linux only.
  #if os(Linux)
  static func connect(port: UInt16) -> Int32? {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(socket)
      return nil
    }
    return socket
  }

  static func sendAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes {
        send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  /// The process's `VmRSS`, in bytes.
  static func residentBytes(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }
    return nil
  }
  #endif
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
