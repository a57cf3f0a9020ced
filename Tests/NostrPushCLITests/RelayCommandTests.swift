import Foundation
import NostrJSON
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct RelayCommandTests {
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
    guard let binary = NostrPushBinary.url else {
      Issue.record("nostr-push was not built")
      return
    }
    let process = Process()
    process.executableURL = binary
    process.arguments = ["relay", "--data", folder.path, "--port", "0", "--now", "1767225600"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = Pipe()
    try process.run()
    var line: [UInt8] = []
    while line.last != 0x0A {
      let byte = output.fileHandleForReading.readData(ofLength: 1)
      if byte.isEmpty { break }
      line += byte
    }
    let listening = try JSONReader().read(line).objectValue?["listening"]?.stringValue
    let origin = try #require(listening)
    let webSocket = try JSONReader().read(line).objectValue?["websocket"]?.stringValue
    #expect(webSocket == "ws" + origin.dropFirst("http".count))
    var request = URLRequest(url: URL(string: origin + "/")!)
    request.setValue("application/nostr+json", forHTTPHeaderField: "Accept")
    let (data, response) = try await URLSession.shared.data(for: request)
    process.terminate()
    process.waitUntilExit()
    #expect(origin.hasPrefix("http://127.0.0.1:"))
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(String(decoding: data, as: UTF8.self) == #"{"name":"cli fixture"}"#)
    #expect(process.terminationStatus == 0)
  }

  @Test func refusesANonLoopbackHostWithStatus1() throws {
    let folder = try Self.temporaryDataFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try NostrPushBinary.run(["relay", "--data", folder.path, "--host", "192.0.2.1"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("non_loopback_host"))
  }

  @Test(arguments: [
    ["relay"], ["relay", "--data", "/tmp", "--port", "http"], ["relay", "--data", "/tmp", "--bogus", "1"],
  ])
  func refusesBadArgumentsWithStatus2(arguments: [String]) throws {
    #expect(try NostrPushBinary.run(arguments).status == 2)
  }
}
