#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one answer to a connection, honestly or shaped by a fault.
struct ResponseWriter {
  /// The bytes sent by the `notJSON` fault: an HTML page, as a misconfigured proxy would send.
  static let notJSONBody = Array("<!DOCTYPE html><html><body>502 upstream unavailable</body></html>".utf8)
  /// The size of one chunk of `oversizedBody` padding (64 KiB); the padding is never held whole.
  static let paddingChunkBytes = 64 * 1024

  let descriptor: Int32
  let stopPipe: Int32
  let writeTimeout: Duration

  /// Sends `response` (or what `action` makes of it); returns whether the connection may serve
  /// another request.
  func write(_ response: HTTPResponse, action: RelayFault.Action?, keepAlive: Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: writeTimeout)
    switch action {
    case nil, .delay:
      return send(response, keepAlive: keepAlive, deadline: deadline) && keepAlive
    case .status(let status):
      return send(
        .error(status, "fault injected: status \(status)"), keepAlive: keepAlive, deadline: deadline)
        && keepAlive
    case .notJSON:
      return send(.json(200, Self.notJSONBody), keepAlive: keepAlive, deadline: deadline) && keepAlive
    case .body(let status, let contentType, let bytes):
      let safeType = String(contentType.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F })
      let custom = HTTPResponse(status: status, headers: [("Content-Type", safeType)], body: bytes)
      return send(custom, keepAlive: keepAlive, deadline: deadline) && keepAlive
    case .truncatedBody:
      let head = response.head(contentLength: response.body.count, keepAlive: false)
      _ = PosixSocket.send(
        head + response.body.prefix(response.body.count / 2), to: descriptor, stopPipe: stopPipe,
        deadline: deadline)
      return false
    case .oversizedBody(let bytes, let declaresLength):
      let padded = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: [])
      let head = padded.head(contentLength: declaresLength ? bytes : nil, keepAlive: false)
      guard PosixSocket.send(head, to: descriptor, stopPipe: stopPipe, deadline: deadline) else {
        return false
      }
      let chunk = [UInt8](repeating: UInt8(ascii: "["), count: Self.paddingChunkBytes)
      var remaining = bytes
      while remaining > 0 {
        let count = min(remaining, chunk.count)
        guard PosixSocket.send(chunk[0..<count], to: descriptor, stopPipe: stopPipe, deadline: deadline)
        else {
          return false
        }
        remaining -= count
      }
      return false
    case .closeConnection:
      return false
    }
  }

  /// Sends an error answer and reports that the connection must close.
  func reject(status: Int, message: String) {
    let deadline = ContinuousClock.now.advanced(by: writeTimeout)
    _ = send(.error(status, message), keepAlive: false, deadline: deadline)
  }

  private func send(_ response: HTTPResponse, keepAlive: Bool, deadline: ContinuousClock.Instant) -> Bool {
    let hasBody = response.status != 304 && response.status != 204
    let head = response.head(contentLength: hasBody ? response.body.count : nil, keepAlive: keepAlive)
    let bytes = hasBody ? head + response.body : head
    return PosixSocket.send(bytes, to: descriptor, stopPipe: stopPipe, deadline: deadline)
  }
}
