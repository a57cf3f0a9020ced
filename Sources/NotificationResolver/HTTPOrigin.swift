#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The canonical HTTP origin of a relay or of a media URL: `http(s)://host[:port]` with the
/// scheme and host lower-cased, the default port removed and IPv6 literals in canonical,
/// bracketed form (`http://[::1]:7777`).
///
/// Both the NIP-98 `u` value and the decision whether an avatar URL may receive credentials
/// compare origins in this form, so `WSS://Relay.Example:443` and `https://relay.example` match.
public struct HTTPOrigin: Sendable, Hashable, CustomStringConvertible {
  /// The longest URL accepted, in UTF-8 bytes.
  public static let maxURLLength = 2048

  /// `http` or `https`.
  public let scheme: String
  /// The lower-cased host; an IPv6 literal includes its brackets.
  public let host: String
  /// The port, nil when it is the scheme's default.
  public let port: Int?

  /// Parses a relay URL: `ws`, `wss`, `http` or `https`, with no path other than `/`, no query,
  /// fragment or userinfo; `ws` becomes `http` and `wss` becomes `https`.
  ///
  /// Use it on the relay URL from the account's configuration before any request is made.
  public init(relayURL: String) throws(ResolverError) {
    guard let parsed = Self.split(relayURL, allowWebSocket: true) else {
      throw ResolverError(.invalidURL, field: "relay", "not a ws, wss, http or https URL with a host")
    }
    guard parsed.rest.isEmpty || parsed.rest == "/" else {
      throw ResolverError(.invalidURL, field: "relay", "a relay URL has no path, query or fragment")
    }
    self = parsed.origin
  }

  private init(scheme: String, host: String, port: Int?) {
    self.scheme = scheme
    self.host = host
    self.port = port
  }

  /// The origin of an `http` or `https` URL and the rest of it (path, query), or nil when the URL
  /// is not an acceptable absolute HTTP URL (userinfo, bad host or port, other schemes).
  ///
  /// Use it for media URLs, whose origin decides whether they may receive NIP-98 credentials.
  public static func parseHTTPURL(_ url: String) -> (origin: HTTPOrigin, rest: String)? {
    split(url, allowWebSocket: false)
  }

  /// `scheme://host[:port]`.
  public var description: String {
    if let port { return "\(scheme)://\(host):\(port)" }
    return "\(scheme)://\(host)"
  }

  /// The absolute URL of `path` (which starts with `/`) on this origin.
  public func url(path: String) -> String { description + path }

  /// Whether the host is a loopback name or address (`localhost`, `127.0.0.0/8`, `[::1]`).
  public var isLoopback: Bool {
    if host == "localhost" || host == "[::1]" { return true }
    var address = in_addr()
    guard inet_pton(AF_INET, host, &address) == 1 else { return false }
    return UInt32(bigEndian: address.s_addr) >> 24 == 127
  }

  private static func split(_ url: String, allowWebSocket: Bool) -> (origin: HTTPOrigin, rest: String)? {
    guard url.utf8.count <= maxURLLength, let colon = url.firstIndex(of: ":") else { return nil }
    let afterColon = url[url.index(after: colon)...]
    guard afterColon.hasPrefix("//") else { return nil }
    let scheme: String
    switch url[..<colon].lowercased() {
    case "http": scheme = "http"
    case "https": scheme = "https"
    case "ws" where allowWebSocket: scheme = "http"
    case "wss" where allowWebSocket: scheme = "https"
    default: return nil
    }
    let afterScheme = afterColon.dropFirst(2)
    let authorityEnd =
      afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
    let authority = afterScheme[..<authorityEnd]
    let rest = String(afterScheme[authorityEnd...])
    guard !authority.contains("@"), !rest.contains("#") else { return nil }
    guard let (host, portText) = splitHostPort(authority), let host = canonicalHost(host) else { return nil }
    var port: Int? = nil
    if let portText, !portText.isEmpty {
      guard portText.utf8.count <= 5, portText.utf8.allSatisfy(isDigit), let number = Int(portText),
        (1...65535).contains(number)
      else { return nil }
      port = number
    }
    if port == (scheme == "https" ? 443 : 80) { port = nil }
    if !allowWebSocket, rest.contains(where: { $0.isWhitespace }) { return nil }
    return (HTTPOrigin(scheme: scheme, host: host, port: port), rest)
  }

  private static func splitHostPort(_ authority: Substring) -> (Substring, Substring?)? {
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      let host = authority[...close]
      let after = authority[authority.index(after: close)...]
      if after.isEmpty { return (host, nil) }
      guard after.hasPrefix(":") else { return nil }
      return (host, after.dropFirst())
    }
    if let colon = authority.firstIndex(of: ":") {
      return (authority[..<colon], authority[authority.index(after: colon)...])
    }
    return (authority, nil)
  }

  private static func canonicalHost(_ host: Substring) -> String? {
    if host.hasPrefix("[") {
      let literal = String(host.dropFirst().dropLast())
      var address = in6_addr()
      guard inet_pton(AF_INET6, literal, &address) == 1 else { return nil }
      var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
      guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
      let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      return "[\(text.lowercased())]"
    }
    let lowered = host.lowercased()
    guard !lowered.isEmpty, lowered.utf8.count <= 253 else { return nil }
    return lowered.utf8.allSatisfy(isHostByte) ? lowered : nil
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

  private static func isHostByte(_ byte: UInt8) -> Bool {
    if isDigit(byte) || (byte >= 97 && byte <= 122) { return true }
    return byte == 0x2D || byte == 0x2E || byte == 0x5F
  }
}
