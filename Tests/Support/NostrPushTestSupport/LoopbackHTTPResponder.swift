import Foundation
import NostrPushCore
import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 that answers every request with one canned reply
/// (test support only): it can send a `Location` header, which the fixture relay cannot, so it
/// serves the redirect-refusal test.
public final class LoopbackHTTPResponder: Sendable {
  /// What every request is answered with.
  public struct Reply: Sendable {
    /// The status code.
    public var status = 200
    /// Header lines, each `Name: value`.
    public var headers: [String] = ["Content-Type: application/nostr+json"]
    /// The body bytes.
    public var body: [UInt8] = []
    /// Whether to send `Content-Length`; without it the body ends when the connection closes.
    public var declaresLength = true
    /// How long to wait after reading the request before answering.
    public var delay: Duration = .zero

    /// Creates a reply; every field has the default above.
    public init(
      status: Int = 200, headers: [String] = ["Content-Type: application/nostr+json"], body: [UInt8] = [],
      declaresLength: Bool = true, delay: Duration = .zero
    ) {
      self.status = status
      self.headers = headers
      self.body = body
      self.declaresLength = declaresLength
      self.delay = delay
    }
  }

  /// The port it listens on.
  public let port: UInt16
  private let listener: Int32
  private let requestHeads = Locked<[String]>([])
  private let stopped = Locked(false)

  /// Starts answering every connection with `reply`.
  public init(_ reply: Reply) throws {
    let fd = socket(AF_INET, PosixSocket.streamType, 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var reuse: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        bind(fd, generic, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, generic, &length) == 0
      }
    }
    guard bound else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    listener = fd
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in acceptLoop(reply) }
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// The request lines and headers received so far, one string per request.
  public var receivedRequests: [String] { requestHeads.withLock { $0 } }

  /// Stops accepting connections. The accept loop closes the socket once it wakes, so the
  /// descriptor cannot be reused by another socket while the loop still uses it.
  public func stop() {
    let first = stopped.withLock { stopped in
      defer { stopped = true }
      return !stopped
    }
    if first { shutdown(listener, Int32(SHUT_RDWR)) }
  }

  private func acceptLoop(_ reply: Reply) {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else {
        close(listener)
        return
      }
      Thread.detachNewThread { [self] in answer(client, with: reply) }
    }
  }

  private func answer(_ client: Int32, with reply: Reply) {
    defer { close(client) }
    var head: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while head.count < 65536, !head.ends(with: Array("\r\n\r\n".utf8)) {
      let count = recv(client, &buffer, 1, 0)
      guard count > 0 else { return }
      head.append(buffer[0])
    }
    let text = String(decoding: head, as: UTF8.self)
    requestHeads.withLock { $0.append(text) }
    // The request body is read before answering: closing a socket with unread bytes resets the
    // connection, which would drop the answer's bytes still on their way to the client.
    var bodyLeft = min(Self.contentLength(text), 1 << 20)
    while bodyLeft > 0 {
      let count = recv(client, &buffer, min(buffer.count, bodyLeft), 0)
      guard count > 0 else { return }
      bodyLeft -= count
    }
    if reply.delay > .zero {
      // Not a wait for anything: a slow server is the behaviour a test asks for.
      Thread.sleep(
        forTimeInterval: Double(reply.delay.components.seconds) + Double(reply.delay.components.attoseconds)
          / 1e18)
    }
    var response = "HTTP/1.1 \(reply.status) Canned\r\nConnection: close\r\n"
    for header in reply.headers { response += header + "\r\n" }
    if reply.declaresLength { response += "Content-Length: \(reply.body.count)\r\n" }
    response += "\r\n"
    guard sendAll(client, Array(response.utf8)) else { return }
    _ = sendAll(client, reply.body)
  }

  /// The request's `Content-Length`, or 0.
  private static func contentLength(_ head: String) -> Int {
    for line in head.split(separator: "\r\n") {
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2, parts[0].lowercased() == "content-length" {
        return Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
      }
    }
    return 0
  }

  private func sendAll(_ client: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        send(client, $0.baseAddress, min($0.count, 65536), Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { return false }
      offset += sent
    }
    return true
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
