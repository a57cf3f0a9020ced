import Foundation

/// A relay's WebSocket URL, checked: `ws` or `wss`, a host, an optional port, path and query.
///
/// Userinfo and fragments are refused (a relay URL never needs them, and both hide what is
/// being connected to); the whole text is bounded so a hostile configuration cannot make the
/// handshake request large. `text` keeps the URL exactly as given, which is what NIP-42's `relay`
/// tag carries.
public struct WebSocketURL: Sendable, Hashable, CustomStringConvertible {
  /// The longest URL accepted, in UTF-8 bytes.
  public static let maxBytes = 2048

  /// The URL exactly as given.
  public let text: String
  /// Whether the scheme is `wss` (TLS).
  public let isSecure: Bool
  /// The host as written, without IPv6 brackets, lower-cased.
  public let host: String
  /// The port given in the URL, nil when it was left to the scheme's default.
  public let port: Int?
  /// The path (at least `/`) and, when present, `?` and the query: the request target.
  public let requestTarget: String

  /// The port to connect to: the given one, else 80 (`ws`) or 443 (`wss`).
  public var effectivePort: Int { port ?? (isSecure ? 443 : 80) }

  /// The `Host` header value: the host (bracketed when IPv6) and the port unless it is the default.
  public var hostHeader: String {
    let name = host.contains(":") ? "[\(host)]" : host
    guard let port, port != (isSecure ? 443 : 80) else { return name }
    return "\(name):\(port)"
  }

  /// The URL as given.
  public var description: String { text }

  /// Parses and checks `text`: `invalid_url` when it is not a URL within the bounds,
  /// `unsupported_scheme` when its scheme is not `ws` or `wss`.
  public init(_ text: String) throws(RelayConnectionError) {
    guard text.utf8.count <= Self.maxBytes else {
      throw RelayConnectionError(.invalidURL, "URL over \(Self.maxBytes) bytes")
    }
    guard let schemeEnd = text.range(of: "://") else {
      throw RelayConnectionError(.invalidURL, "not an absolute URL: \(text)")
    }
    let scheme = text[..<schemeEnd.lowerBound].lowercased()
    guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first),
      scheme.unicodeScalars.allSatisfy({
        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "."
      })
    else {
      throw RelayConnectionError(.invalidURL, "not a URL scheme: \(scheme)")
    }
    guard scheme == "ws" || scheme == "wss" else {
      throw RelayConnectionError(.unsupportedScheme, "\(scheme):// is not a WebSocket URL (ws:// or wss://)")
    }
    let rest = text[schemeEnd.upperBound...]
    guard !rest.contains("#") else { throw RelayConnectionError(.invalidURL, "a relay URL has no fragment") }
    guard rest.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
      throw RelayConnectionError(.invalidURL, "spaces, control or non-ASCII characters in the URL")
    }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    guard !authority.contains("@") else {
      throw RelayConnectionError(.invalidURL, "a relay URL has no userinfo")
    }
    var host: Substring
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else {
        throw RelayConnectionError(.invalidURL, "unterminated IPv6 literal")
      }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else {
          throw RelayConnectionError(.invalidURL, "junk after the IPv6 literal")
        }
        portText = after.dropFirst()
      }
      guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        throw RelayConnectionError(.invalidURL, "not an IPv6 literal: \(host)")
      }
    } else {
      if let colon = authority.firstIndex(of: ":") {
        host = authority[..<colon]
        portText = authority[authority.index(after: colon)...]
      } else {
        host = authority
      }
      guard
        !host.isEmpty,
        host.unicodeScalars.allSatisfy({
          ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
            || $0 == "." || $0 == "_"
        })
      else {
        throw RelayConnectionError(.invalidURL, "not a host name: \(host)")
      }
    }
    var port: Int?
    if let portText {
      guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
        let value = Int(portText), (1...65535).contains(value)
      else {
        throw RelayConnectionError(.invalidURL, "port not in 1...65535: \(portText)")
      }
      port = value
    }
    let target = rest[authorityEnd...]
    self.text = text
    self.isSecure = scheme == "wss"
    self.host = host.lowercased()
    self.port = port
    self.requestTarget = target.isEmpty ? "/" : (target.hasPrefix("?") ? "/" + target : String(target))
  }
}
