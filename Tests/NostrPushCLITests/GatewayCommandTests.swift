import Foundation
import NostrJSON
import NostrPushTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1))) struct GatewayCommandTests {
  static let keyHex = "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098"
  static let pubkey = "11709e7cba279867eb5e29c188f3e74c003adea8f909b6a5520ae739251d44f5"

  @Test func printsTheListeningLineWithItsKeyServesGrantsAndStopsOnSIGTERM() async throws {
    let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gateway-key-\(UUID().uuidString)")
    try Data((Self.keyHex + "\n").utf8).write(to: keyFile)
    defer { try? FileManager.default.removeItem(at: keyFile) }
    guard
      let (process, line) = try await NostrPushBinary.startServer([
        "gateway", "--key-file", keyFile.path, "--now", "1767225600", "--quota", "0",
      ])
    else {
      Issue.record("nostr-push was not built")
      return
    }
    let object = try #require(try JSONReader().read(line).objectValue)
    #expect(object.keys == ["listening", "pubkey"])
    #expect(object["pubkey"]?.stringValue == Self.pubkey)
    let origin = try #require(object["listening"]?.stringValue)
    let response: (status: Int, body: [UInt8])
    do {
      response = try await LoopbackFetch.send(
        origin + "/v1/test/grants", method: "POST",
        body: Array(#"{"relay_pubkey":"\#(Self.pubkey)","device_token":"abcd","ttl_seconds":60}"#.utf8))
    } catch {
      process.send(SIGKILL)  // no answer: the server does not outlive the test
      throw error
    }
    process.send(SIGTERM)
    let exit = await process.exited()
    #expect(origin.hasPrefix("http://127.0.0.1:"))
    #expect(response.status == 200)
    #expect(try JSONReader().read(response.body).objectValue?["expires_at"] == .integer(1_767_225_660))
    #expect(exit.status == 0)
  }

  @Test(arguments: [
    ["gateway", "--host", "::1"], ["gateway", "--host", "192.0.2.1"], ["gateway", "--host", "localhost"],
    ["gateway", "--host", "0.0.0.0"],
    ["gateway", "--quota", "-1"], ["gateway", "--port", "70000"], ["gateway", "--bogus"],
    ["gateway", "extra"],
  ])
  func refusesBadArgumentsWithStatus2(arguments: [String]) async throws {
    #expect(try await NostrPushBinary.run(arguments).status == 2)
  }

  @Test(arguments: [
    ["gateway", "--key-file", "/nonexistent/key"], ["gateway", "--script", "/nonexistent/script"],
  ])
  func refusesAnUnreadableFileWithStatus1(arguments: [String]) async throws {
    #expect(try await NostrPushBinary.run(arguments).status == 1)
  }
}
