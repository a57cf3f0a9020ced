import Foundation
import NostrJSON
import NostrPushTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct RelayCommandTests {
  private static func temporaryDataFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "relay-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(#"{"name":"cli fixture"}"#.utf8).write(to: folder.appendingPathComponent("nip11.json"))
    return folder
  }

  @Test func printsTheListeningURLServesAndStopsOnSIGTERM() async throws {
    let folder = try Self.temporaryDataFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    guard
      let (process, line) = try await NostrPushBinary.startServer([
        "relay", "--data", folder.path, "--port", "0", "--now", "1767225600",
      ])
    else {
      Issue.record("nostr-push was not built")
      return
    }
    let listening = try JSONReader().read(line).objectValue?["listening"]?.stringValue
    let origin = try #require(listening)
    let webSocket = try JSONReader().read(line).objectValue?["websocket"]?.stringValue
    #expect(webSocket == "ws" + origin.dropFirst("http".count))
    let response = try await LoopbackFetch.send(origin + "/", headers: ["Accept": "application/nostr+json"])
    process.send(SIGTERM)
    let exit = await process.exited()
    #expect(origin.hasPrefix("http://127.0.0.1:"))
    #expect(response.status == 200)
    #expect(String(decoding: response.body, as: UTF8.self) == #"{"name":"cli fixture"}"#)
    #expect(exit.status == 0)
  }

  @Test(arguments: [
    ["relay"], ["relay", "--data", "/tmp", "--port", "http"], ["relay", "--data", "/tmp", "--bogus", "1"],
  ])
  func refusesBadArgumentsWithStatus2(arguments: [String]) async throws {
    #expect(try await NostrPushBinary.run(arguments).status == 2)
  }
}

/// `relay`'s push flags: the usage rules (exit 2), unreadable inputs (exit 1), and a push-mode
/// relay serving its rewritten descriptor.
@Suite(.timeLimit(.minutes(2))) struct RelayPushFlagTests {
  static let demo = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/demo").path
  /// The demo relay's push key (a test key, `Fixtures/demo/keys.json`).
  static let pushKeyHex = "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098"

  static func keyFile(_ text: String = pushKeyHex) throws -> URL {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("push-key-\(UUID().uuidString)")
    try Data(text.utf8).write(to: file)
    return file
  }

  @Test(arguments: [
    ["--gateway", "http://127.0.0.1:9"], ["--state", "/tmp/push-state.sqlite"],
    ["--gateway-timeout-ms", "2000"], ["--database", "host=/nonexistent dbname=x"],
    ["--origin", "ws://127.0.0.1:48111"],
  ])
  func refusesAPushFlagWithoutAPushKeyWithStatus2(flag: [String]) async throws {
    let result = try await NostrPushBinary.run(["relay", "--data", Self.demo] + flag)
    #expect(result.status == 2)
    #expect(result.stderr.contains("--push-key-file"))
  }

  @Test(arguments: ["0.0.0.0", "192.0.2.1", "relay.example", "::"])
  func refusesAHostOutsideLoopbackAsAUsageError(host: String) async throws {
    let result = try await NostrPushBinary.run(["relay", "--data", Self.demo, "--host", host])
    #expect(result.status == 2)
    #expect(result.stderr.contains("--host"))
    #expect(result.stderr.contains("non_loopback_host") || result.stderr.contains("invalid_host"))
    #expect(result.stdout.isEmpty)
  }

  @Test(arguments: ["::1", "192.0.2.1", "[::1]"])
  func refusesAHostOutsideIPv4LoopbackInPushModeWithStatus2(host: String) async throws {
    let key = try Self.keyFile()
    defer { try? FileManager.default.removeItem(at: key) }
    let result = try await NostrPushBinary.run(
      ["relay", "--data", Self.demo, "--push-key-file", key.path, "--host", host])
    #expect(result.status == 2)
    #expect(result.stderr.contains("IPv4 loopback"))
  }

  @Test(arguments: [
    ["--gateway-timeout-ms", "99"], ["--gateway-timeout-ms", "10001"], ["--gateway", "ftp://x"],
    ["--state", "/tmp/push-state.sqlite", "--database", "host=/nonexistent dbname=x"],
    ["--origin", "http://127.0.0.1:48111"], ["--database", ""],
  ])
  func refusesABadGatewaySettingWithStatus2(flag: [String]) async throws {
    let key = try Self.keyFile()
    defer { try? FileManager.default.removeItem(at: key) }
    let result = try await NostrPushBinary.run(
      ["relay", "--data", Self.demo, "--push-key-file", key.path] + flag)
    #expect(result.status == 2)
  }

  @Test func refusesAnUnreadableOrInvalidKeyWithStatus1() async throws {
    let missing = try await NostrPushBinary.run(
      ["relay", "--data", Self.demo, "--push-key-file", "/nonexistent/push.key"])
    #expect(missing.status == 1)
    let key = try Self.keyFile("not a key")
    defer { try? FileManager.default.removeItem(at: key) }
    let invalid = try await NostrPushBinary.run(["relay", "--data", Self.demo, "--push-key-file", key.path])
    #expect(invalid.status == 1)
  }

  @Test func refusesAnUnopenableStateFileWithStatus1() async throws {
    let key = try Self.keyFile()
    defer { try? FileManager.default.removeItem(at: key) }
    let result = try await NostrPushBinary.run(
      [
        "relay", "--data", Self.demo, "--push-key-file", key.path, "--state",
        FileManager.default.temporaryDirectory.path,
      ])
    #expect(result.status == 1)
    #expect(result.stderr.contains("state"))
  }

  @Test func refusesAnUnreachableDatabaseWithStatus1() async throws {
    let key = try Self.keyFile()
    defer { try? FileManager.default.removeItem(at: key) }
    let result = try await NostrPushBinary.run(
      [
        "relay", "--data", Self.demo, "--push-key-file", key.path, "--database",
        "host=/nonexistent-\(UUID().uuidString) dbname=nostrpush connect_timeout=2",
      ])
    #expect(result.status == 1)
    #expect(result.stderr.contains("database"))
  }

  @Test func refusesADataFolderWithoutAPushDescriptorWithStatus1() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "relay-push-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data(#"{"name":"no push"}"#.utf8).write(to: folder.appendingPathComponent("nip11.json"))
    let key = try Self.keyFile()
    defer { try? FileManager.default.removeItem(at: key) }
    let result = try await NostrPushBinary.run(["relay", "--data", folder.path, "--push-key-file", key.path])
    #expect(result.status == 1)
    #expect(result.stderr.contains("nip11.json"))
  }

  @Test func servesTheRewrittenDescriptorInPushMode() async throws {
    let key = try Self.keyFile()
    defer { try? FileManager.default.removeItem(at: key) }
    guard
      let (process, line) = try await NostrPushBinary.startServer([
        "relay", "--data", Self.demo, "--push-key-file", key.path, "--gateway", "http://127.0.0.1:9",
        "--gateway-timeout-ms", "500",
      ])
    else {
      Issue.record("nostr-push was not built")
      return
    }
    let listening = try JSONReader().read(line).objectValue
    let origin = try #require(listening?["listening"]?.stringValue)
    let webSocket = try #require(listening?["websocket"]?.stringValue)
    let response = try await LoopbackFetch.send(origin + "/", headers: ["Accept": "application/nostr+json"])
    process.send(SIGTERM)
    let exit = await process.exited()
    let push = try JSONReader().read(response.body).objectValue?["push"]?.objectValue
    #expect(push?["origin"]?.stringValue == webSocket)
    #expect(exit.status == 0)
  }
}
