import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import Testing

/// `nostr-push publish` and `query` against an in-process fixture.
@Suite(.timeLimit(.minutes(1))) struct PublishQueryCommandTests {
  static let now: Int64 = 1_767_226_600

  struct Setup: LoopbackFixture {
    let server: RelayFixtureServer
    let origin: String
    let webSocket: String
    let keyFile: String
    let key: SecretKey
    let stored: Event

    func stop() async { await server.stop() }
  }

  static func setup() async throws -> Setup {
    let key = SecretKey.generate()
    let stored = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: now - 10, kind: 9, tags: [], content: "stored"
    )
    .signed(with: key)
    let server = RelayFixtureServer(
      data: RelayFixtureData(), configuration: RelayFixtureConfiguration(now: now, requestLogCapacity: 100))
    let origin = try await server.start().absoluteString
    try server.add([stored])
    let keyFile = try writeKey("7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a")
    return Setup(
      server: server, origin: origin, webSocket: try #require(server.relayOrigin).webSocketURL,
      keyFile: keyFile,
      key: key,
      stored: stored)
  }

  static func writeKey(_ hex: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)").path
    try Data(hex.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func event(_ key: SecretKey, content: String) throws -> Event {
    try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: now, kind: 1, tags: [], content: content).signed(
      with: key)
  }

  @Test(arguments: ["websocket", "http"])
  func publishesAnEventAndPrintsTheAnswer(transport: String) async throws {
    try await withStarted(try await Self.setup()) { setup in
      let accountHex = "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a"
      let account = try SecretKey(hex: accountHex)
      let keyFile = try Self.writeKey(accountHex)
      let event = try Self.event(account, content: "via \(transport)")
      let relay = transport == "websocket" ? setup.webSocket : setup.origin
      let run = try await NostrPushBinary.run(
        [
          "publish", "--relay", relay, "--secret-key-file", keyFile, "--transport", transport, "--now",
          "\(Self.now)",
        ],
        input: event.jsonBytes())
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stdout == #"{"accepted":true,"id":"\#(event.id)","message":""}"# + "\n")
      let again = try await NostrPushBinary.run(
        [
          "publish", "--relay", relay, "--secret-key-file", keyFile, "--transport", transport, "--now",
          "\(Self.now)",
        ],
        input: event.jsonBytes())
      #expect(again.stdout.contains("duplicate: already have this event"))
    }
  }

  @Test(arguments: ["websocket", "query"])
  func queriesAndPrintsOneEventPerLine(transport: String) async throws {
    try await withStarted(try await Self.setup()) { setup in
      let keyFile = try Self.writeKey("7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a")
      let filters = FileManager.default.temporaryDirectory.appendingPathComponent(
        "filters-\(UUID().uuidString)")
      try Data(#"[{"kinds":[9]}]"#.utf8).write(to: filters)
      let relay = transport == "websocket" ? setup.webSocket : setup.origin
      let run = try await NostrPushBinary.run([
        "query", "--relay", relay, "--secret-key-file", keyFile, "--filters", filters.path, "--transport",
        transport,
        "--now", "\(Self.now)",
      ])
      #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
      #expect(run.stdout == String(decoding: setup.stored.jsonBytes(), as: UTF8.self) + "\n")
      let summary = try JSONReader().read(run.stderr.split(separator: "\n").last.map(String.init) ?? "")
        .objectValue
      #expect(summary?["events"] == .integer(1))
      #expect(summary?["dropped"] == .integer(0))
    }
  }

  @Test(arguments: [
    (["--relay", "http://127.0.0.1:1"], "unsupported_scheme"),
    (["--relay", "ws://127.0.0.1:1"], "unreachable"),
    (["--relay", "ws://user@127.0.0.1:1"], "invalid_url"),
  ])
  func printsAnErrorLine(arguments: [String], code: String) async throws {
    let keyFile = try Self.writeKey("7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a")
    let run = try await NostrPushBinary.run(["query", "--secret-key-file", keyFile] + arguments)
    #expect(run.status == 1)
    let line = try JSONReader().read(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue
    #expect(line?["error"] == .string(code))
  }

  @Test(arguments: ["0", "60001"])
  func refusesATimeoutOutOfRange(value: String) async throws {
    let run = try await NostrPushBinary.run([
      "publish", "--relay", "ws://127.0.0.1:1", "--secret-key-file", "/nonexistent", "--timeout-ms", value,
    ])
    #expect(run.status == 2)
  }
}
