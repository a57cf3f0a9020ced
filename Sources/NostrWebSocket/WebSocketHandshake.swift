import Foundation
import NostrEvent

/// The RFC 6455 opening handshake: the client's request, the check of the server's answer, and
/// the `Sec-WebSocket-Accept` computation both ends share.
///
/// No extension and no subprotocol is offered or accepted, so a server that names one in its
/// answer is refused: nothing here could honour it.
package enum WebSocketHandshake {
  /// The largest response head (status line and headers) read before giving up.
  package static let maxHandshakeResponseBytes = 16 * 1024
  /// The GUID RFC 6455 §1.3 appends to the key.
  package static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
  /// The number of random bytes in a `Sec-WebSocket-Key`.
  package static let keyByteCount = 16

  /// A fresh `Sec-WebSocket-Key`: the base64 of 16 bytes from `SystemRandomNumberGenerator`.
  package static func makeKey() -> String {
    Data(SystemRandom.bytes(keyByteCount)).base64EncodedString()
  }

  /// `Sec-WebSocket-Accept` for `key`: base64(SHA-1(key + the GUID)).
  package static func acceptValue(for key: String) -> String {
    Data(SHA1.hash(Array((key + acceptGUID).utf8))).base64EncodedString()
  }

  /// Whether `key` is the base64 of exactly 16 bytes (what a server checks).
  package static func isValidKey(_ key: String) -> Bool {
    key.utf8.count == 24 && Data(base64Encoded: key)?.count == keyByteCount
  }

  /// The opening request for `url` with `key`.
  package static func request(for url: WebSocketURL, key: String) -> [UInt8] {
    let text =
      "GET \(url.requestTarget) HTTP/1.1\r\n" + "Host: \(url.hostHeader)\r\n" + "Upgrade: websocket\r\n"
      + "Connection: Upgrade\r\n" + "Sec-WebSocket-Version: 13\r\n" + "Sec-WebSocket-Key: \(key)\r\n\r\n"
    return Array(text.utf8)
  }

  /// The length of the response head in `bytes` (through the blank line), nil when it has not
  /// ended yet; `handshake_failed` when it is already longer than `maxHandshakeResponseBytes`.
  package static func responseHeadLength(in bytes: [UInt8]) throws(RelayConnectionError) -> Int? {
    let limit = min(bytes.count, maxHandshakeResponseBytes)
    if limit >= 4 {
      for index in 3..<limit
      where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A
        && bytes[index - 3] == 0x0D
      {
        return index + 1
      }
    }
    guard bytes.count < maxHandshakeResponseBytes else {
      throw RelayConnectionError(
        code: .handshakeFailed, message: "response head over \(maxHandshakeResponseBytes) bytes")
    }
    return nil
  }

  /// Checks the server's response head (through the blank line) against the request's `key`.
  package static func validateResponse(head: [UInt8], key: String) throws(RelayConnectionError) {
    let text = String(decoding: head, as: UTF8.self)
    var lines = text.components(separatedBy: "\r\n")
    let statusLine = lines.isEmpty ? "" : lines.removeFirst()
    let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
      throw RelayConnectionError(
        code: .handshakeFailed, message: "not an HTTP response: \(statusLine.prefix(80))")
    }
    guard status == 101 else {
      throw RelayConnectionError(
        code: .handshakeFailed, message: "status \(status), not 101 Switching Protocols")
    }
    var headers: [(name: String, value: String)] = []
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else {
        throw RelayConnectionError(code: .handshakeFailed, message: "malformed header line")
      }
      headers.append(
        (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    func values(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }
    guard values("upgrade").contains(where: { $0.lowercased() == "websocket" }) else {
      throw RelayConnectionError(code: .handshakeFailed, message: "no Upgrade: websocket")
    }
    let connectionTokens = values("connection").flatMap { $0.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    guard connectionTokens.contains("upgrade") else {
      throw RelayConnectionError(code: .handshakeFailed, message: "no Connection: upgrade")
    }
    guard values("sec-websocket-accept") == [acceptValue(for: key)] else {
      throw RelayConnectionError(
        code: .handshakeFailed, message: "Sec-WebSocket-Accept does not match the key")
    }
    guard values("sec-websocket-extensions").isEmpty else {
      throw RelayConnectionError(
        code: .handshakeFailed, message: "server chose an extension none was offered")
    }
    guard values("sec-websocket-protocol").isEmpty else {
      throw RelayConnectionError(
        code: .handshakeFailed, message: "server chose a subprotocol none was offered")
    }
  }
}
