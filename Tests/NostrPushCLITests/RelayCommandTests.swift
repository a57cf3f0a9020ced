import Foundation
import NostrJSON
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct RelayCommandTests {
  /// The built `nostr-push` in the build folder of the test runner.
  private static var binary: URL {
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var folder = runner.deletingLastPathComponent()
    while folder.path != "/",
      !FileManager.default.fileExists(atPath: folder.appendingPathComponent("nostr-push").path)
    {
      folder = folder.deletingLastPathComponent()
    }
    return folder.appendingPathComponent("nostr-push")
  }

  private static func temporaryDataFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "relay-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(#"{"name":"cli fixture"}"#.utf8).write(to: folder.appendingPathComponent("nip11.json"))
    return folder
  }

  private static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = Pipe()
    try process.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
  }

  @Test func printsTheListeningURLServesAndStopsOnSIGTERM() async throws {
    let folder = try Self.temporaryDataFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let process = Process()
    process.executableURL = Self.binary
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
    let result = try Self.run(["relay", "--data", folder.path, "--host", "192.0.2.1"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("non_loopback_host"))
  }

  @Test(arguments: [
    ["relay"], ["relay", "--data", "/tmp", "--port", "http"], ["relay", "--data", "/tmp", "--bogus", "1"],
  ])
  func refusesBadArgumentsWithStatus2(arguments: [String]) throws {
    #expect(try Self.run(arguments).status == 2)
  }
}
