import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 address and port a gateway listener binds (`"127.0.0.1:8443"`).
public struct PushGatewayListenAddress: Sendable, Hashable, CustomStringConvertible {
  /// The IPv4 address, dotted quad.
  public let host: String
  /// The TCP port (0: the system picks one, for tests).
  public let port: UInt16

  /// Parses `host:port`; `invalid_field` (naming `field`) unless host is an IPv4 dotted quad
  /// (the server binds IPv4) and port 0 to 65535.
  public init(_ text: String, field: String = "listen") throws(PushGatewayConfigurationError) {
    guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
      throw PushGatewayConfigurationError(
        code: .invalidField, field: field, message: "must be IPv4:port, like 127.0.0.1:8443")
    }
    let host = String(text[..<colon])
    var address = in_addr()
    guard inet_pton(AF_INET, host, &address) == 1 else {
      throw PushGatewayConfigurationError(
        code: .invalidField, field: field, message: "the host must be an IPv4 address (dotted quad)")
    }
    self.host = host
    self.port = port
  }

  /// `host:port`.
  public var description: String { "\(host):\(port)" }
}

/// The gateway's sealing key material: the 32 random bytes of a `key_file` (64 hex digits), from
/// which the sealing keys are derived. Its description never shows the bytes.
public struct PushGatewayKeyMaterial: Sendable, Hashable, CustomStringConvertible {
  /// The 32 bytes.
  public let bytes: [UInt8]

  /// The bytes of a key file: 64 hex digits, surrounding white space ignored; `invalid_field`
  /// (naming `field`) otherwise.
  init(fileContents: [UInt8], field: String) throws(PushGatewayConfigurationError) {
    let text = String(decoding: fileContents, as: UTF8.self).trimmingWhitespace()
    guard text.utf8.count == 64, let bytes = Hex.decode(text), bytes.count == 32 else {
      throw PushGatewayConfigurationError(
        code: .invalidField, field: field, message: "the key file must hold 32 bytes as 64 hex digits")
    }
    self.bytes = bytes
  }

  /// Redacted.
  public var description: String { "PushGatewayKeyMaterial(32 bytes, redacted)" }
}

/// Where the gateway keeps its state.
public enum PushGatewayStoreLocation: Sendable, Hashable, CustomStringConvertible {
  /// A SQLite file (one gateway process).
  case sqlite(path: String)
  /// A PostgreSQL database, by libpq conninfo (several gateway processes).
  case postgres(conninfo: String)

  /// The kind and, for SQLite, the path; a conninfo is never shown (it may hold a password).
  public var description: String {
    switch self {
    case .sqlite(let path): "sqlite:\(path)"
    case .postgres: "postgres"
    }
  }
}

/// The wakes admitted per device fingerprint: at most `per10Seconds` in any 10 s and `perHour`
/// in any hour (never refunded).
public struct PushGatewayQuota: Sendable, Hashable {
  /// The default per 10 s: 10.
  public static let defaultPer10Seconds = 10
  /// The default per hour: 120.
  public static let defaultPerHour = 120

  /// At most this many per 10 s.
  public let per10Seconds: Int
  /// At most this many per hour.
  public let perHour: Int

  /// A quota; the configuration checks `1 ≤ per10Seconds ≤ perHour`.
  public init(per10Seconds: Int = defaultPer10Seconds, perHour: Int = defaultPerHour) {
    self.per10Seconds = per10Seconds
    self.perHour = perHour
  }
}

extension String {
  /// The text without leading and trailing ASCII white space.
  fileprivate func trimmingWhitespace() -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r\n" || $0 == "\r" || $0 == "\t" }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
    else {
      return ""
    }
    return String(self[first...last])
  }
}
