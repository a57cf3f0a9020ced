import Foundation
import NostrPushCore
import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP client for loopback tests that need exact bytes on one connection: keep-alive
/// reuse, oversized heads, slow and trickling clients, connection limits. Every read is bounded by
/// `SO_RCVTIMEO`, so a server that never answers fails the test instead of hanging it.
final class RawHTTPClient: @unchecked Sendable {
  // `@unchecked Sendable`: a test uses one client from one task at a time.

  /// The longest one read waits.
  static let readTimeout: Duration = .seconds(10)

  /// One parsed response.
  struct Response: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
  }

  /// How a read ended.
  enum End: Sendable, Equatable { case closed, timedOut }

  let descriptor: Int32
  private var buffer: [UInt8] = []

  /// Connects to `127.0.0.1:port`; nil when the connection is refused.
  init?(port: UInt16) {
    let socket = posixSocket()
    guard socket >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      posixClose(socket)
      return nil
    }
    var timeout = timeval(tv_sec: Int(Self.readTimeout.wholeMilliseconds / 1000), tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    descriptor = socket
  }

  deinit { posixClose(descriptor) }

  /// Sends `bytes` whole; false when the server closed the connection.
  @discardableResult
  func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        posixSend(descriptor, $0.baseAddress! + offset, bytes.count - offset)
      }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  /// Sends `text`.
  @discardableResult
  func send(_ text: String) -> Bool { send(Array(text.utf8)) }

  /// Reads more bytes; the end when the peer closed or the read timed out.
  private func fill() -> End? {
    var scratch = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count > 0 {
        buffer.append(contentsOf: scratch[0..<count])
        return nil
      }
      if count < 0, errno == EINTR { continue }
      if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .timedOut }
      return .closed
    }
  }

  /// The next whole response (`Content-Length` bodies), or how the connection ended first.
  func readResponse() -> Result<Response, RawHTTPClientEnd> {
    while true {
      if let response = takeResponse() { return .success(response) }
      if let end = fill() { return .failure(RawHTTPClientEnd(end: end)) }
    }
  }

  /// Reads until the server closes the connection (or the read times out), dropping the bytes.
  func readUntilEnd() -> End {
    while true {
      buffer = []
      if let end = fill() { return end }
    }
  }

  private func takeResponse() -> Response? {
    guard let headEnd = findHeadEnd() else { return nil }
    let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
        in: .whitespaces)
    }
    let length = headers["content-length"].flatMap { Int($0) } ?? 0
    let bodyStart = headEnd + 4
    guard buffer.count >= bodyStart + length else { return nil }
    let body = Array(buffer[bodyStart..<(bodyStart + length)])
    buffer.removeSubrange(0..<(bodyStart + length))
    return Response(status: status, headers: headers, body: body)
  }

  private func findHeadEnd() -> Int? {
    guard buffer.count >= 4 else { return nil }
    for index in 0...(buffer.count - 4)
    where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10
    {
      return index
    }
    return nil
  }
}

/// The end of a connection met while a response was expected.
struct RawHTTPClientEnd: Error {
  var end: RawHTTPClient.End
}

extension RawHTTPClient {
  /// Connects, sends `request`, reads one response, off the cooperative pool.
  static func exchange(port: UInt16, _ request: String) async -> Result<Response, RawHTTPClientEnd> {
    await BlockingWork.run {
      guard let client = RawHTTPClient(port: port) else { return .failure(RawHTTPClientEnd(end: .closed)) }
      client.send(request)
      return client.readResponse()
    }
  }

  /// A `POST` of `body` to `path` with `Content-Length`.
  static func post(_ path: String, body: String, extraHeaders: String = "") -> String {
    "POST \(path) HTTP/1.1\r\nHost: localhost\r\n\(extraHeaders)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
  }
}

/// A TCP socket (`SIGPIPE` off on Darwin, where sends take no flag for it).
private func posixSocket() -> Int32 {
  let descriptor = socket(AF_INET, PosixSocket.streamType, 0)
  #if canImport(Darwin)
  var one: Int32 = 1
  setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
  #endif
  return descriptor
}

/// `close(2)`.
private func posixClose(_ descriptor: Int32) { _ = close(descriptor) }

/// `send(2)` without `SIGPIPE`.
private func posixSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
  return send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
  #else
  return send(descriptor, bytes, count, 0)
  #endif
}
