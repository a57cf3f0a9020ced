/// A relay's canonical HTTP origin, the key every cache record is stored under.
///
/// `ws`→`http` and `wss`→`https`; scheme and host lower-cased; the default port removed; IPv6
/// literals in brackets (`http://[::1]:7777`). A path other than `/`, a query, a fragment or
/// userinfo is refused, so two spellings of one relay always share their records.
public struct RelayOrigin: Sendable, Hashable, CustomStringConvertible {
  /// The longest relay URL accepted, in UTF-8 bytes.
  public static let maxLength = 2048

  /// The canonical origin, e.g. `https://relay.example` or `http://127.0.0.1:7777`.
  public let string: String

  public var description: String { string }

  /// Parses and canonicalises a relay URL; throws `invalidField` (field `relay`) when it is not one.
  public init(_ url: String) throws(CacheError) {
    guard url.utf8.count <= RelayOrigin.maxLength else { throw .invalid("relay", "longer than 2048 bytes") }
    guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
      throw .invalid("relay", "no scheme")
    }
    let scheme: String
    switch url[..<colon].lowercased() {
    case "ws", "http": scheme = "http"
    case "wss", "https": scheme = "https"
    default: throw .invalid("relay", "scheme must be ws, wss, http or https")
    }
    var rest = url[url.index(colon, offsetBy: 3)...]
    if let slash = rest.firstIndex(of: "/") {
      guard rest[slash...] == "/" else { throw .invalid("relay", "a relay URL has no path") }
      rest = rest[..<slash]
    }
    guard !rest.contains(where: { "?#@".contains($0) }) else {
      throw .invalid("relay", "a relay URL has no query, fragment or userinfo")
    }
    var host: String
    var portText: Substring?
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { throw .invalid("relay", "unclosed IPv6 literal") }
      let literal = rest[rest.index(after: rest.startIndex)..<close]
      guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        throw .invalid("relay", "bad IPv6 literal")
      }
      host = "[" + literal.lowercased() + "]"
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw .invalid("relay", "junk after IPv6 literal") }
        portText = after.dropFirst()
      }
    } else {
      let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      host = parts[0].lowercased()
      portText = parts.count == 2 ? parts[1] : nil
      guard !host.isEmpty,
        host.unicodeScalars.allSatisfy({
          $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".")
        })
      else { throw .invalid("relay", "bad host") }
    }
    var origin = scheme + "://" + host
    if let portText {
      guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let port = Int(portText),
        (1...65535).contains(port)
      else { throw .invalid("relay", "bad port") }
      if !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) {
        origin += ":\(port)"
      }
    }
    string = origin
  }
}
