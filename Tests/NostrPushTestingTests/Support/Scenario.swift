import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small signed world for the fixture tests: keys, a channel, events, and a running server.
struct Scenario {
  /// The fixed clock of every scenario server (2026-01-01T00:16:40Z).
  static let now: Int64 = 1_767_226_600
  /// The channel id used by the events.
  static let channel = "0b5e7f0c-1d2a-4c3b-9e8f-7a6b5c4d3e2f"

  let relayKey = SecretKey.generate()
  let sender = SecretKey.generate()
  let account = SecretKey.generate()

  /// A kind-9 message from `sender` to `account`, `offset` seconds before `now`.
  func message(_ content: String, offset: Int64, key: SecretKey? = nil, kind: Int = 9) throws -> Event {
    try UnsignedEvent(
      pubkey: (key ?? sender).publicKeyHex, createdAt: Self.now - offset, kind: kind,
      tags: [["h", Self.channel], ["p", account.publicKeyHex]], content: content
    ).signed(with: key ?? sender)
  }

  /// A kind-0 profile of `sender`.
  func profile(offset: Int64 = 500) throws -> Event {
    try UnsignedEvent(
      pubkey: sender.publicKeyHex, createdAt: Self.now - offset, kind: 0, tags: [],
      content: #"{"name":"alice","display_name":"Alice"}"#
    ).signed(with: sender)
  }

  /// Runs `body` against a server over `data` (by default on the scenario clock) and its base
  /// URL, then awaits the server's stop, also when `body` throws.
  static func serving<T>(
    _ data: RelayFixtureData, configuration: RelayFixtureConfiguration = RelayFixtureConfiguration(now: now),
    _ body: (RelayFixtureServer, String) async throws -> T
  ) async throws -> T {
    try await withRelay(data, configuration: configuration) { server in
      try await body(server, try #require(server.origin))
    }
  }

  /// Starts a server over `data` with the scenario clock; the caller stops it (the tests that
  /// check what `stop()` itself does).
  static func start(
    _ data: RelayFixtureData, configure: (inout RelayFixtureConfiguration) -> Void = { _ in }
  ) async throws -> (RelayFixtureServer, String) {
    var configuration = RelayFixtureConfiguration(now: now)
    configure(&configuration)
    let server = RelayFixtureServer(data: data, configuration: configuration)
    let url = try await server.start()
    return (server, url.absoluteString)
  }
}

/// The ids of the events in a JSON array answer, in order.
func eventIDs(_ body: [UInt8]) throws -> [String] {
  let elements = try JSONReader().read(body).arrayValue ?? []
  return elements.compactMap { $0.objectValue?["id"]?.stringValue }
}

/// The port of an origin such as `http://127.0.0.1:4242`.
func port(of origin: String) -> Int {
  Int(origin.split(separator: ":").last!)!
}

/// Resident memory of this process in bytes, from `/proc/self/statm` (nil where there is none).
func residentBytes() -> Int? {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
  let fields = text.split(separator: " ")
  guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
