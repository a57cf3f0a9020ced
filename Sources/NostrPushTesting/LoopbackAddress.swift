#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback IP address the fixture may bind: anything in 127.0.0.0/8, or `::1`.
///
/// Built only through `init(host:)`, which refuses every other address, so a fixture can never
/// be exposed beyond the machine it runs on.
struct LoopbackAddress: Sendable, Hashable {
  /// The address family and its bytes in network order.
  enum Storage: Sendable, Hashable {
    case ipv4([UInt8])
    case ipv6([UInt8])
  }

  /// The parsed address.
  let storage: Storage

  /// Parses `host`: an IPv4 literal, an IPv6 literal (with or without brackets) or `localhost`.
  init(host: String) throws(RelayFixtureError) {
    var text = host
    if text.lowercased() == "localhost" { text = "127.0.0.1" }
    if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
    var v4 = in_addr()
    var v6 = in6_addr()
    if inet_pton(AF_INET, text, &v4) == 1 {
      let bytes = withUnsafeBytes(of: &v4) { Array($0) }
      guard bytes[0] == 127 else {
        throw RelayFixtureError(
          code: .nonLoopbackHost, field: "host",
          message: "\(host) is not in 127.0.0.0/8; only loopback is served")
      }
      storage = .ipv4(bytes)
    } else if inet_pton(AF_INET6, text, &v6) == 1 {
      let bytes = withUnsafeBytes(of: &v6) { Array($0) }
      guard bytes == [UInt8](repeating: 0, count: 15) + [1] else {
        throw RelayFixtureError(
          code: .nonLoopbackHost, field: "host", message: "\(host) is not ::1; only loopback is served")
      }
      storage = .ipv6(bytes)
    } else {
      throw RelayFixtureError(
        code: .invalidHost, field: "host",
        message: "\(host) is not an IP address literal (use 127.0.0.1, ::1 or localhost)")
    }
  }

  /// The host as it appears in a URL authority: dotted quad, or `[::1]`.
  var urlHost: String {
    switch storage {
    case .ipv4(let bytes): bytes.map(String.init).joined(separator: ".")
    case .ipv6: "[::1]"
    }
  }
}

extension RelayFixtureConfiguration {
  /// Checks `host` as the fixture will when it starts (127.0.0.0/8, `::1` or `localhost`):
  /// for a command line that reports a bad `--host` as a usage error before loading anything.
  package static func checkHost(_ host: String) throws(RelayFixtureError) {
    _ = try LoopbackAddress(host: host)
  }
}
