import Foundation

/// Cuts HTTP/1.x requests out of the bytes one connection has received, enforcing the head and
/// body limits; the connection loop feeds it whatever arrived and acts on each step.
///
/// Bytes after one request stay in the buffer for the next (pipelining). Chunked bodies are
/// refused (411): every client the fixture serves sends `Content-Length`. Time limits are the
/// loop's job: it asks `hasPartialRequest(in:)` to choose between the request and idle timeouts.
struct HTTPRequestParser {
  /// What one call to `next(from:)` produced.
  enum Step {
    /// The buffer holds no complete request yet: read more.
    case needMore
    /// The head asked for `100-continue` and no body byte has arrived: send the interim answer,
    /// then read the body.
    case sendContinue
    /// A complete request, removed from the buffer.
    case request(HTTPRequest)
    /// The request broke a rule: answer `status` with `message`, then close.
    case reject(status: Int, message: String)
  }

  private let maxHeaderBytes: Int
  private let maxBodyBytes: Int
  /// The head of a request whose body is still arriving.
  private var pending: (request: HTTPRequest, length: Int)?
  /// Where the search for the end of the head resumes (the bytes before it hold no terminator).
  private var searchFrom = 0

  /// Creates a parser with the configured limits.
  init(configuration: RelayFixtureConfiguration) {
    self.maxHeaderBytes = configuration.maxHeaderBytes
    self.maxBodyBytes = configuration.maxBodyBytes
  }

  /// The most bytes worth holding while a request is incomplete: the largest head and body.
  var bufferLimit: Int { maxHeaderBytes + 4 + maxBodyBytes }

  /// Whether part of a request has arrived (so the request timeout, not the idle one, applies).
  func hasPartialRequest(in buffer: [UInt8]) -> Bool {
    pending != nil || buffer.contains { $0 != 0x0D && $0 != 0x0A }
  }

  /// Takes the next request out of `buffer`, or says what the loop must do first.
  mutating func next(from buffer: inout [UInt8]) -> Step {
    if pending == nil {
      let blank = buffer.prefix { $0 == 0x0D || $0 == 0x0A }.count
      if blank > 0 {
        buffer.removeFirst(blank)
        searchFrom = 0
      }
      guard let headEnd = Self.find(terminatorIn: buffer, from: searchFrom) else {
        if buffer.count > maxHeaderBytes {
          return .reject(status: 431, message: "request head over \(maxHeaderBytes) bytes")
        }
        searchFrom = max(0, buffer.count - 3)
        return .needMore
      }
      searchFrom = 0
      if headEnd > maxHeaderBytes {
        return .reject(status: 431, message: "request head too large")
      }
      let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
      buffer.removeFirst(headEnd + 4)
      let request: HTTPRequest
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
      if length > maxBodyBytes {
        return .reject(status: 413, message: "request body over \(maxBodyBytes) bytes")
      }
      pending = (request, length)
      if length > 0, request.header("expect")?.lowercased() == "100-continue", buffer.isEmpty {
        return .sendContinue
      }
    }
    guard let waiting = pending, buffer.count >= waiting.length else { return .needMore }
    var request = waiting.request
    request.body = Array(buffer[0..<waiting.length])
    buffer.removeFirst(waiting.length)
    pending = nil
    return .request(request)
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
    // Byte-level: the head is split on CRLF, the request line on spaces, each header line at its
    // first colon (a String-and-CharacterSet parse cost the gateway fixture most of its time).
    let bytes = Array(head.utf8)
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index + 1 < bytes.count {
      if bytes[index] == 0x0D && bytes[index + 1] == 0x0A {
        lines.append(bytes[start..<index])
        index += 2
        start = index
      } else {
        index += 1
      }
    }
    lines.append(bytes[start...])
    let parts = lines[0].split(separator: 0x20, omittingEmptySubsequences: false)
    guard parts.count == 3 else { return .failure(HeadError(message: "malformed request line")) }
    let method = String(decoding: parts[0], as: UTF8.self)
    let target = String(decoding: parts[1], as: UTF8.self)
    guard !parts[0].isEmpty, parts[0].allSatisfy({ isTokenByte($0) }) else {
      return .failure(HeadError(message: "malformed method"))
    }
    guard parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      return .failure(HeadError(message: "malformed request target"))
    }
    let minor: Int
    switch String(decoding: parts[2], as: UTF8.self) {
    case "HTTP/1.1": minor = 1
    case "HTTP/1.0": minor = 0
    default: return .failure(HeadError(message: "unsupported HTTP version"))
    }
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
        return .failure(HeadError(message: "malformed header line"))
      }
      let name = line[line.startIndex..<colon]
      guard !name.isEmpty, name.allSatisfy({ isTokenByte($0) }) else {
        return .failure(HeadError(message: "malformed header name"))
      }
      var value = line[(colon + 1)...]
      while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
      while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
      let lowered = name.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
      headers.append((String(decoding: lowered, as: UTF8.self), String(decoding: value, as: UTF8.self)))
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
