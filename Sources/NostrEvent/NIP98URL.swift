/// The form in which NIP-98 compares URLs: the URL's authority as ``URLAuthority`` canonicalises
/// it (scheme and host lower-cased, IPv6 in canonical form, the scheme's default port removed),
/// one trailing `/` of the path removed, the query kept exactly.
///
/// A URL that does not parse (userinfo, a fragment, a bad host) is compared exactly as given.
enum NIP98URL {
  /// `url` in comparison form.
  static func normalized(_ url: String) -> String {
    guard let parts = URLAuthority(url) else { return url }
    var rest = parts.rest
    let pathEnd = rest.firstIndex(of: "?") ?? rest.endIndex
    if pathEnd > rest.startIndex, rest[rest.index(before: pathEnd)] == "/" {
      rest.remove(at: rest.index(before: pathEnd))
    }
    let port = parts.port == defaultPort(parts.scheme) ? nil : parts.port
    return parts.scheme + "://" + parts.host + (port.map { ":\($0)" } ?? "") + rest
  }

  private static func defaultPort(_ scheme: String) -> Int? {
    switch scheme {
    case "http", "ws": 80
    case "https", "wss": 443
    default: nil
    }
  }
}
