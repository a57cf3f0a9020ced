import Foundation
import NostrEvent

/// A relay's WebSocket URL, checked: `ws` or `wss`, a host, an optional port, path and query.
///
/// Userinfo and fragments are refused (a relay URL never needs them, and both hide what is
/// being connected to); the whole text is bounded so a hostile configuration cannot make the
/// handshake request large. `text` keeps the URL exactly as given, which is what NIP-42's `relay`
/// tag carries.
package struct WebSocketURL: Sendable, Hashable, CustomStringConvertible {
  /// The longest URL accepted, in UTF-8 bytes.
  package static let maxBytes = 2048

  /// The URL exactly as given.
  package let text: String
  /// Whether the scheme is `wss` (TLS).
  package let isSecure: Bool
  /// The canonical host, read by the package's one URL parser (`URLAuthority`): lower-cased,
  /// an IPv6 literal in `inet_ntop` form without its brackets.
  package let host: String
  /// The port given in the URL, nil when it was left to the scheme's default.
  package let port: Int?
  /// The path (at least `/`) and, when present, `?` and the query: the request target.
  package let requestTarget: String

  /// The port to connect to: the given one, else 80 (`ws`) or 443 (`wss`).
  package var effectivePort: Int { port ?? (isSecure ? 443 : 80) }

  /// The `Host` header value: the host (bracketed when IPv6) and the port unless it is the default.
  package var hostHeader: String {
    let name = host.contains(":") ? "[\(host)]" : host
    guard let port, port != (isSecure ? 443 : 80) else { return name }
    return "\(name):\(port)"
  }

  /// The URL as given.
  package var description: String { text }

  /// Parses and checks `text`: `invalid_url` when it is not a URL within the bounds,
  /// `unsupported_scheme` when its scheme is not `ws` or `wss`.
  package init(_ text: String) throws(RelayConnectionError) {
    guard text.utf8.count <= Self.maxBytes else {
      throw RelayConnectionError(code: .invalidURL, message: "URL over \(Self.maxBytes) bytes")
    }
    // The request target goes on the wire in the request line: nothing that could split it.
    guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
      throw RelayConnectionError(
        code: .invalidURL, message: "spaces, control or non-ASCII characters in the URL")
    }
    guard let url = URLAuthority(text) else {
      throw RelayConnectionError(
        code: .invalidURL,
        message:
          "not an absolute URL with a host name or IP literal, a port in 1...65535, no userinfo and no fragment: \(text)"
      )
    }
    guard url.scheme == "ws" || url.scheme == "wss" else {
      throw RelayConnectionError(
        code: .unsupportedScheme, message: "\(url.scheme):// is not a WebSocket URL (ws:// or wss://)")
    }
    self.text = text
    self.isSecure = url.scheme == "wss"
    self.host = url.bareHost
    self.port = url.port
    self.requestTarget = url.rest.isEmpty ? "/" : (url.rest.hasPrefix("?") ? "/" + url.rest : url.rest)
  }
}
