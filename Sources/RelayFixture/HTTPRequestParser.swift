import Foundation

/// Reads HTTP/1.x requests from one connection, enforcing the head, body and time limits.
///
/// Bytes after one request stay in the buffer for the next (pipelining). Chunked bodies are
/// refused (411): every client the fixture serves sends `Content-Length`.
struct HTTPRequestReader {
  /// What one call to `next()` produced.
  enum Outcome {
    /// A complete request.
    case request(HTTPRequest)
    /// The peer closed, the idle timeout passed before a first byte, or the server is stopping.
    case closed
    /// The request broke a rule: answer `status` with `message`, then close.
    case reject(status: Int, message: String)
  }

  /// The size of one `recv()`.
  private static let readChunkBytes = 16 * 1024

  private let descriptor: Int32
  private let stopPipe: Int32
  private let configuration: RelayFixtureConfiguration
  private var buffer: [UInt8] = []
  private var scratch = [UInt8](repeating: 0, count: HTTPRequestReader.readChunkBytes)

  /// Creates a reader for the connection `descriptor`.
  init(descriptor: Int32, stopPipe: Int32, configuration: RelayFixtureConfiguration) {
    self.descriptor = descriptor
    self.stopPipe = stopPipe
    self.configuration = configuration
  }

  /// Reads the next request.
  mutating func next() -> Outcome {
    while buffer.first == 0x0D || buffer.first == 0x0A { buffer.removeFirst() }
    var requestDeadline: ContinuousClock.Instant? =
      buffer.isEmpty ? nil : ContinuousClock.now.advanced(by: configuration.requestTimeout)
    let idleDeadline = ContinuousClock.now.advanced(by: configuration.idleTimeout)
    var headEnd: Int?
    var searchFrom = 0
    while headEnd == nil {
      headEnd = Self.find(terminatorIn: buffer, from: searchFrom)
      if let end = headEnd {
        if end > configuration.maxHeaderBytes {
          return .reject(status: 431, message: "request head too large")
        }
        break
      }
      if buffer.count > configuration.maxHeaderBytes {
        return .reject(status: 431, message: "request head over \(configuration.maxHeaderBytes) bytes")
      }
      searchFrom = max(0, buffer.count - 3)
      switch fill(deadline: requestDeadline ?? idleDeadline) {
      case .ready:
        while requestDeadline == nil, buffer.first == 0x0D || buffer.first == 0x0A { buffer.removeFirst() }
        if requestDeadline == nil, !buffer.isEmpty {
          requestDeadline = ContinuousClock.now.advanced(by: configuration.requestTimeout)
        }
      case .timedOut:
        return requestDeadline == nil
          ? .closed : .reject(status: 408, message: "request not complete in time")
      case .stopping:
        return .closed
      }
    }
    guard let headEnd, let deadline = requestDeadline else { return .closed }
    let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
    buffer.removeFirst(headEnd + 4)
    var request: HTTPRequest
    switch Self.parse(head: head) {
    case .success(let parsed): request = parsed
    case .failure(let failure): return .reject(status: 400, message: failure.message)
    }
    if request.header("transfer-encoding") != nil {
      return .reject(status: 411, message: "chunked request bodies are not accepted; send Content-Length")
    }
    let lengths = request.headers.filter { $0.name == "content-length" }.map(\.value)
    var length = 0
    if let first = lengths.first {
      guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
        first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = Int(first)
      else { return .reject(status: 400, message: "invalid Content-Length") }
      length = parsed
    }
    if length > configuration.maxBodyBytes {
      return .reject(status: 413, message: "request body over \(configuration.maxBodyBytes) bytes")
    }
    if length > 0, request.header("expect")?.lowercased() == "100-continue", buffer.isEmpty {
      let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
      guard PosixSocket.send(interim, to: descriptor, stopPipe: stopPipe, deadline: deadline) else {
        return .closed
      }
    }
    while buffer.count < length {
      switch fill(deadline: deadline) {
      case .ready: continue
      case .timedOut: return .reject(status: 408, message: "request body not complete in time")
      case .stopping: return .closed
      }
    }
    request.body = Array(buffer[0..<length])
    buffer.removeFirst(length)
    return .request(request)
  }

  /// Reads more bytes; `.ready` only when at least one byte arrived.
  private mutating func fill(deadline: ContinuousClock.Instant) -> PosixSocket.Readiness {
    switch PosixSocket.wait(for: descriptor, stopPipe: stopPipe, deadline: deadline) {
    case .ready:
      let count = PosixSocket.receive(descriptor, into: &buffer, scratch: &scratch)
      if count > 0 { return .ready }
      if count < 0, errno == EINTR || errno == EAGAIN { return .ready }
      return .stopping
    case .timedOut: return .timedOut
    case .stopping: return .stopping
    }
  }

  /// The offset of the first `\r\n\r\n` at or after `start`.
  private static func find(terminatorIn bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= 4 else { return nil }
    var index = start
    while index + 3 < bytes.count {
      if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A {
        return index
      }
      index += 1
    }
    return nil
  }

  /// Why a request head was refused.
  struct HeadError: Error {
    /// A short description for the 400 answer.
    var message: String
  }

  /// Parses a request line and header fields (without the closing blank line).
  static func parse(head: String) -> Result<HTTPRequest, HeadError> {
    let lines = head.components(separatedBy: "\r\n")
    let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return .failure(HeadError(message: "malformed request line")) }
    let method = String(parts[0])
    let target = String(parts[1])
    guard !method.isEmpty, method.utf8.allSatisfy({ isTokenByte($0) }) else {
      return .failure(HeadError(message: "malformed method"))
    }
    guard target.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      return .failure(HeadError(message: "malformed request target"))
    }
    let minor: Int
    switch parts[2] {
    case "HTTP/1.1": minor = 1
    case "HTTP/1.0": minor = 0
    default: return .failure(HeadError(message: "unsupported HTTP version"))
    }
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else {
        return .failure(HeadError(message: "malformed header line"))
      }
      let name = String(line[..<colon])
      guard !name.isEmpty, name.utf8.allSatisfy({ isTokenByte($0) }) else {
        return .failure(HeadError(message: "malformed header name"))
      }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
      headers.append((name.lowercased(), value))
    }
    return .success(
      HTTPRequest(method: method, target: target, minorVersion: minor, headers: headers, body: []))
  }

  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    default:
      "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }
}
