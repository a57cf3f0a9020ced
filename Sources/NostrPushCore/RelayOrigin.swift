#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A relay's canonical HTTP origin, the one form every module compares and stores relays in:
/// `http(s)://host[:port]` with `ws`→`http` and `wss`→`https`, scheme and host lower-cased, the
/// scheme's default port removed, and IPv6 literals in `inet_ntop`'s canonical bracketed form
/// (`http://[::1]:7777`).
///
/// Parse a relay URL once, at the boundary, and pass this value on: the cache keys records by it,
/// NIP-98 signs URLs on it, and credentials go only to it, so `WSS://Relay.Example:443/` and
/// `https://relay.example` are the same relay everywhere.
///
/// Decisions: a host is LDH labels (1–63 bytes, no leading or trailing `-`, at most 253 bytes in
/// all) that may also contain `_`, because resolvers and libcurl reach such names (container
/// hosts, `relay_1.localhost`), or an IPv4 or IPv6 literal; userinfo, fragments and (for a relay
/// URL) any path but `/` or a query are refused.
public struct RelayOrigin: Sendable, Hashable, CustomStringConvertible {
  /// The longest URL accepted, in UTF-8 bytes.
  package static let maxURLBytes = 2048
  /// The longest host name, in bytes (DNS).
  package static let maxHostBytes = 253
  /// The longest label of a host name, in bytes (DNS).
  package static let maxLabelBytes = 63

  /// Whether the origin is `https` (else `http`).
  public let isSecure: Bool
  /// The lower-cased host; an IPv6 literal includes its brackets.
  public let host: String
  /// The port, nil when it is the scheme's default.
  public let port: Int?

  /// Parses a relay URL: `ws`, `wss`, `http` or `https`, with no path other than `/`, no query,
  /// fragment or userinfo.
  ///
  /// - Throws: `invalid_field` with field `relay`, naming what is wrong.
  public init(_ relayURL: String) throws(RelayOriginError) {
    guard let parsed = Self.parse(relayURL) else {
      throw .invalid("relay", "not a ws, wss, http or https URL with a valid host and port")
    }
    guard parsed.rest.isEmpty || parsed.rest == "/" else {
      throw .invalid("relay", "a relay URL has no path, query or fragment")
    }
    self = parsed.origin
  }

  init(isSecure: Bool, host: String, port: Int?) {
    self.isSecure = isSecure
    self.host = host
    self.port = port
  }

  /// The origin of an absolute `ws`, `wss`, `http` or `https` URL and the rest of it (path and
  /// query, fragment refused), or nil when the URL is not one; `webSocket` tells which family the
  /// scheme was.
  ///
  /// Use it where a URL may carry a path: the NIP-11 address of a relay URL, a media URL whose
  /// origin decides whether it may receive NIP-98 credentials. It also checks any other HTTP
  /// origin, such as a push gateway's base URL: `webSocket` false and `rest` empty mean exactly
  /// `http(s)://host[:port]`.
  public static func parse(_ url: String) -> (origin: RelayOrigin, rest: String, webSocket: Bool)? {
    guard let parts = URLAuthority(url) else { return nil }
    let webSocket = parts.scheme == "ws" || parts.scheme == "wss"
    let secure = parts.scheme == "https" || parts.scheme == "wss"
    guard webSocket || parts.scheme == "http" || secure else { return nil }
    let port = parts.port == (secure ? 443 : 80) ? nil : parts.port
    return (RelayOrigin(isSecure: secure, host: parts.host, port: port), parts.rest, webSocket)
  }

  /// `http(s)://host[:port]`, the form records are stored under.
  public var description: String { authority(scheme: isSecure ? "https" : "http") }

  /// `ws(s)://host[:port]`, the relay's WebSocket URL and the form of a descriptor's `push.origin`.
  public var webSocketURL: String { authority(scheme: isSecure ? "wss" : "ws") }

  /// The absolute HTTP URL of `path` (which starts with `/`) on this origin.
  package func url(path: String) -> String { description + path }

  /// Whether the host is a loopback name or address (`localhost`, `*.localhost`, `127.0.0.0/8`,
  /// `[::1]`): where plain `http` is acceptable, since nothing leaves the machine.
  public var isLoopback: Bool {
    if host == "localhost" || host.hasSuffix(".localhost") || host == "[::1]" { return true }
    var address = in_addr()
    guard inet_pton(AF_INET, host, &address) == 1 else { return false }
    return UInt32(bigEndian: address.s_addr) >> 24 == 127
  }

  private func authority(scheme: String) -> String {
    guard let port else { return "\(scheme)://\(host)" }
    return "\(scheme)://\(host):\(port)"
  }
}

/// The parts of an absolute URL with an authority, each checked and canonicalised: lower-case
/// scheme, canonical host, the port as a number, and the rest (path and query) as given.
///
/// The one URL-authority parser of the package: ``RelayOrigin``, NIP-98's URL comparison and the
/// descriptor's `push.origin` grammar all read URLs through it.
package struct URLAuthority: Sendable {
  /// The lower-cased scheme.
  package let scheme: String
  /// The canonical host (lower case; IPv6 in brackets, `inet_ntop` form).
  package let host: String
  /// The port as written (a default port is kept here), nil when absent.
  package let port: Int?
  /// Path and query as given.
  package let rest: String

  /// The host as a socket address or name resolver takes it: an IPv6 literal without brackets.
  package var bareHost: String {
    host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
  }

  /// The URL in canonical form: `scheme://host[:port]rest`, the port kept as written.
  package var canonical: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") + rest }

  /// Parses `url`; nil when it has no authority or any part is malformed.
  package init?(_ url: String) {
    guard url.utf8.count <= RelayOrigin.maxURLBytes, let colon = url.firstIndex(of: ":") else { return nil }
    let afterColon = url[url.index(after: colon)...]
    guard afterColon.hasPrefix("//") else { return nil }
    let scheme = url[..<colon].lowercased()
    guard !scheme.isEmpty, scheme.utf8.allSatisfy(Self.isSchemeByte) else { return nil }
    let afterScheme = afterColon.dropFirst(2)
    let authorityEnd =
      afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
    let authority = afterScheme[..<authorityEnd]
    let rest = String(afterScheme[authorityEnd...])
    guard !authority.contains("@"), !rest.contains("#"), !rest.contains(where: \.isWhitespace) else {
      return nil
    }
    guard let (rawHost, portText) = Self.splitHostPort(authority), let host = Self.canonicalHost(rawHost)
    else { return nil }
    var port: Int? = nil
    if let portText {
      guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy(Self.isDigit),
        let number = Int(portText), (1...65535).contains(number)
      else { return nil }
      port = number
    }
    self.scheme = scheme
    self.host = host
    self.port = port
    self.rest = rest
  }

  private static func splitHostPort(_ authority: Substring) -> (Substring, Substring?)? {
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      let after = authority[authority.index(after: close)...]
      if after.isEmpty { return (authority[...close], nil) }
      guard after.hasPrefix(":") else { return nil }
      return (authority[...close], after.dropFirst())
    }
    guard let colon = authority.firstIndex(of: ":") else { return (authority, nil) }
    return (authority[..<colon], authority[authority.index(after: colon)...])
  }

  private static func canonicalHost(_ host: Substring) -> String? {
    if host.hasPrefix("[") {
      var address = in6_addr()
      guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1 else { return nil }
      var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
      guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
      return "[" + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        + "]"
    }
    let lowered = host.lowercased()
    guard !lowered.isEmpty, lowered.utf8.count <= RelayOrigin.maxHostBytes else { return nil }
    for label in lowered.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
      guard !label.isEmpty, label.count <= RelayOrigin.maxLabelBytes, label.first != UInt8(ascii: "-"),
        label.last != UInt8(ascii: "-"), label.allSatisfy(isHostByte)
      else { return nil }
    }
    return lowered
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  private static func isHostByte(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
  }

  private static func isSchemeByte(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2B || byte == 0x2D || byte == 0x2E
  }
}
