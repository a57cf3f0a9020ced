import Foundation
import NostrWebSocket

/// The server's side of the RFC 6455 opening handshake: whether a request asks for an upgrade,
/// and the `Sec-WebSocket-Accept` value when it asks correctly.
enum WebSocketUpgrade {
  /// Whether the head carries `Upgrade: websocket` (any case).
  static func isRequested(_ headers: [(name: String, value: String)]) -> Bool {
    headers.contains { $0.name == "upgrade" && $0.value.lowercased().contains("websocket") }
  }

  /// The accept value for a well-formed upgrade request (`Connection` holds `upgrade`, version
  /// 13, a key of 16 base64 bytes); nil when any of those is missing or wrong.
  static func acceptValue(for headers: [(name: String, value: String)]) -> String? {
    let connectionTokens = headers.filter { $0.name == "connection" }
      .flatMap { $0.value.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    guard connectionTokens.contains("upgrade"),
      headers.first(where: { $0.name == "sec-websocket-version" })?.value == "13",
      let key = headers.first(where: { $0.name == "sec-websocket-key" })?.value,
      WebSocketHandshake.isValidKey(key)
    else { return nil }
    return WebSocketHandshake.acceptValue(for: key)
  }
}
