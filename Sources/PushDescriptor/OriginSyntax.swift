/// The grammar of `push.origin`: `ws://` or `wss://` followed by an authority and nothing else.
///
/// The authority is a lower-case host name (LDH labels), a dotted IPv4 address, or a bracketed
/// lower-case IPv6 address, with an optional port of 1 to 65535 written without leading zeros.
/// No userinfo, path (not even `/`), query or fragment.
enum OriginSyntax {
  /// The longest host name DNS allows, in bytes.
  static let maxHostLength = 253
  /// The longest DNS label, in bytes.
  static let maxLabelLength = 63

  static func isValid(_ origin: String) -> Bool {
    let bytes = Array(origin.utf8)
    let authority: ArraySlice<UInt8>
    if bytes.starts(with: "wss://".utf8) {
      authority = bytes[6...]
    } else if bytes.starts(with: "ws://".utf8) {
      authority = bytes[5...]
    } else {
      return false
    }
    let host: ArraySlice<UInt8>
    let port: ArraySlice<UInt8>?
    if authority.first == UInt8(ascii: "[") {
      guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return false }
      host = authority[authority.startIndex...close]
      let rest = authority[(close + 1)...]
      if rest.isEmpty {
        port = nil
      } else {
        guard rest.first == UInt8(ascii: ":") else { return false }
        port = rest.dropFirst()
      }
      guard isIPv6Literal(host) else { return false }
    } else if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
      host = authority[..<colon]
      port = authority[(colon + 1)...]
      guard isHostName(host) else { return false }
    } else {
      host = authority
      port = nil
      guard isHostName(host) else { return false }
    }
    if let port { return isPort(port) }
    return true
  }

  private static func isHostName(_ host: ArraySlice<UInt8>) -> Bool {
    guard !host.isEmpty, host.count <= maxHostLength else { return false }
    for label in host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
      guard !label.isEmpty, label.count <= maxLabelLength,
        label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
        label.allSatisfy({ isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") })
      else { return false }
    }
    return true
  }

  private static func isIPv6Literal(_ host: ArraySlice<UInt8>) -> Bool {
    let inner = host.dropFirst().dropLast()
    guard inner.count >= 2, inner.contains(UInt8(ascii: ":")) else { return false }
    return inner.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
        UInt8(ascii: ":"), UInt8(ascii: "."):
        true
      default: false
      }
    }
  }

  private static func isPort(_ port: ArraySlice<UInt8>) -> Bool {
    guard (1...5).contains(port.count), port.first != UInt8(ascii: "0"),
      port.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    else { return false }
    let value = port.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    return value <= 65535
  }

  private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
  }
}
