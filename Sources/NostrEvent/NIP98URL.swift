import Foundation

/// The form in which NIP-98 compares URLs: scheme and host lower-cased, the scheme's default
/// port removed, one trailing `/` of the path removed; query and fragment kept exactly.
package enum NIP98URL {
  /// `url` in comparison form (a string without `://` is returned unchanged).
  package static func normalized(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return url }
    let scheme = url[..<schemeEnd.lowerBound].lowercased()
    let rest = url[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    var authority = String(rest[..<authorityEnd])
    var tail = String(rest[authorityEnd...])

    var userInfo = ""
    if let at = authority.lastIndex(of: "@") {
      userInfo = String(authority[...at])
      authority = String(authority[authority.index(after: at)...])
    }
    var host = authority
    var port: String?
    let bracketEnd = authority.lastIndex(of: "]")
    if let colon = authority.lastIndex(of: ":"), bracketEnd.map({ colon > $0 }) ?? true {
      host = String(authority[..<colon])
      port = String(authority[authority.index(after: colon)...])
    }
    host = host.lowercased()
    if let current = port, current.isEmpty || current == defaultPort(scheme) { port = nil }

    let pathEnd = tail.firstIndex { $0 == "?" || $0 == "#" } ?? tail.endIndex
    if pathEnd > tail.startIndex, tail[tail.index(before: pathEnd)] == "/" {
      tail.remove(at: tail.index(before: pathEnd))
    }
    return scheme + "://" + userInfo + host + (port.map { ":" + $0 } ?? "") + tail
  }

  private static func defaultPort(_ scheme: String) -> String? {
    switch scheme {
    case "http", "ws": "80"
    case "https", "wss": "443"
    default: nil
    }
  }
}
