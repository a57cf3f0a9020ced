import Foundation
import NostrWebSocket

/// The server's side of the RFC 6455 opening handshake: whether a request asks for an upgrade,
/// and the `Sec-WebSocket-Accept` value when it asks correctly.
///
/// The one home of these rules: ``HTTPServer`` upgrades with them, and the fixture relay of
/// `NostrPushTesting` (its own socket loop, for fault injection) answers its upgrades with them.
public enum WebSocketUpgrade {
  /// Why an upgrade request was refused: the status, the text and any header to send.
  public struct Refusal: Error, Sendable, Hashable {
    /// 400, or 426 for a version other than 13.
    public let status: Int
    /// What was wrong.
    public let message: String
    /// `Sec-WebSocket-Version: 13` with a 426, else none.
    public let headers: [HTTPServerHeader]
  }

  /// Whether the head carries `Upgrade: websocket` (any case).
  static func isRequested(_ headers: [(name: String, value: String)]) -> Bool {
    headers.contains { $0.name == "upgrade" && $0.value.lowercased().contains("websocket") }
  }

  /// The accept value for a well-formed upgrade request (`Connection` holds `upgrade`, version
  /// 13, a key of 16 base64 bytes); nil when any of those is missing or wrong.
  static func acceptValue(for headers: [(name: String, value: String)]) -> String? {
    try? accept(headers).get()
  }

  /// The accept value for `headers` (names lower-cased), checked in the order of RFC 6455
  /// §4.2.1 after the method, `Host` and `Upgrade`: `Connection` holds `upgrade`, the version is
  /// 13 (else 426 naming it), the key is the base64 of 16 bytes; else the first refusal.
  public static func accept(_ headers: [(name: String, value: String)]) -> Result<String, Refusal> {
    let connectionTokens = headers.filter { $0.name == "connection" }
      .flatMap { $0.value.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    guard connectionTokens.contains("upgrade") else {
      return .failure(Refusal(status: 400, message: "Connection must name upgrade", headers: []))
    }
    guard headers.first(where: { $0.name == "sec-websocket-version" })?.value == "13" else {
      return .failure(
        Refusal(
          status: 426, message: "Sec-WebSocket-Version must be 13",
          headers: [HTTPServerHeader(name: "Sec-WebSocket-Version", value: "13")]))
    }
    guard let key = headers.first(where: { $0.name == "sec-websocket-key" })?.value,
      WebSocketHandshake.isValidKey(key)
    else {
      return .failure(
        Refusal(status: 400, message: "Sec-WebSocket-Key must be the base64 of 16 bytes", headers: []))
    }
    return .success(WebSocketHandshake.acceptValue(for: key))
  }
}
