import Foundation
import NostrEvent
import NostrPushCore
import PushRelayServer
import Testing

/// The configuration file is validated at start and every error names its field.
@Suite struct PushServiceConfigurationTests {
  /// A valid file's text with `edit` applied to its JSON text.
  static func text(_ folder: TemporaryFolder, _ edit: (String) -> String = { $0 }) throws -> String {
    edit(
      try configurationText(folder: folder, upstreams: ["ws://127.0.0.1:1"], gateway: "http://127.0.0.1:2"))
  }

  @Test func aValidFileIsRead() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = try folder.write("config.json", try Self.text(folder), mode: 0o644)
    let configuration = try PushServiceConfiguration(file: path)
    #expect(configuration.publicOrigin.webSocketURL == "wss://push.example.org")
    #expect(configuration.upstreams.map(\.url) == ["ws://127.0.0.1:1"])
    #expect(configuration.store == .sqlite(folder.path + "/state.sqlite"))
    #expect(configuration.pushKeys.map(\.publicKeyHex) == [Keys.push.publicKeyHex])
    #expect(configuration.queryTimeout == .seconds(3))
    #expect(configuration.limits == PushServiceLimits())
  }

  @Test func theListenerLimitsAreReadFromTheFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let text = try Self.text(folder) {
      $0.replacingOccurrences(
        of: #""public_url""#,
        with:
          #""limits":{"max_connections":2048,"max_connections_per_ip":2048,"max_queries_per_minute_per_ip":50000},"public_url""#
      )
    }
    let configuration = try PushServiceConfiguration(file: try folder.write("config.json", text, mode: 0o644))
    #expect(configuration.limits.maxConnections == 2048)
    #expect(configuration.limits.maxConnectionsPerIP == 2048)
    #expect(configuration.limits.maxQueriesPerMinutePerIP == 50_000)
    #expect(configuration.limits.idleTimeout == PushServiceLimits.defaultIdleTimeout)
  }

  /// (a replacement in the valid text, the field the error must name)
  static let broken: [(String, String, String)] = [
    (#""public_url":"wss://push.example.org""#, #""public_url":"https://push.example.org""#, "public_url"),
    (#""listen":"127.0.0.1:0""#, #""listen":"localhost""#, "listen"),
    (#""admin_listen":"127.0.0.1:0""#, #""admin_listen":"127.0.0.1:99999""#, "admin_listen"),
    (#"{"url":"ws://127.0.0.1:1""#, #"{"url":"http://x""#, "upstreams[0].url"),
    (#""store":{"sqlite":"state.sqlite"}"#, #""store":{}"#, "store"),
    (#""push_key_files":["push.key"]"#, #""push_key_files":[]"#, "push_key_files"),
    (#""push_key_files":["push.key"]"#, #""push_key_files":["missing.key"]"#, "push_key_files[0]"),
    (#""feeds":{"websocket":true"#, #""feeds":{"websocket":"yes""#, "feeds.websocket"),
    (#""gateway":"http://127.0.0.1:2""#, #""gateway":"ftp://x""#, "gateway"),
    (#""public_url""#, #""query_timeout_ms":5,"public_url""#, "query_timeout_ms"),
    (#""public_url""#, #""pubilc_url":1,"public_url""#, "pubilc_url"),
    (#""descriptor":{"#, #""descriptor":{"origin":"ws://x","#, "descriptor.origin"),
    (#""public_url""#, #""limits":{"max_connections":0},"public_url""#, "limits.max_connections"),
    (
      #""public_url""#, #""limits":{"max_connections":64,"max_connections_per_ip":65},"public_url""#,
      "limits.max_connections_per_ip"
    ),
    (#""public_url""#, #""limits":{"max_querys":1},"public_url""#, "limits.max_querys"),
  ]

  @Test(arguments: 0..<broken.count)
  func aBrokenFieldIsNamed(_ index: Int) throws {
    let (original, replacement, field) = Self.broken[index]
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let text = try Self.text(folder) { $0.replacingOccurrences(of: original, with: replacement) }
    #expect(text.contains(replacement))
    let path = try folder.write("config.json", text, mode: 0o644)
    let error = try #require(throws: PushServiceError.self) { try PushServiceConfiguration(file: path) }
    #expect(error.field == field, "\(error)")
  }

  @Test func aKeyFileOthersCanReadIsRefused() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let text = try Self.text(folder)
    try folder.write("push.key", Keys.pushHex, mode: 0o644)
    let path = try folder.write("config.json", text, mode: 0o644)
    let error = try #require(throws: PushServiceError.self) { try PushServiceConfiguration(file: path) }
    #expect(error.code == .unreadableFile)
    #expect(error.field == "push_key_files[0]")
  }

  @Test func aDescriptorThatIsNotAValidPushPolicyIsNamedAtStart() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let text = try Self.text(folder) {
      $0.replacingOccurrences(of: #""push_kinds":[1,9,40002,45001,45003,1059]"#, with: #""push_kinds":"all""#)
    }
    let path = try folder.write("config.json", text, mode: 0o644)
    let configuration = try PushServiceConfiguration(file: path)
    let error = await #expect(throws: PushServiceError.self) {
      _ = try await PushService.start(configuration)
    }
    #expect(error?.field?.hasPrefix("descriptor") == true, "\(String(describing: error))")
  }
}
