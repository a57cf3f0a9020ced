import Foundation
import Testing

/// Runs `nostr-push cache arguments…`; returns (status, stdout, stderr).
private func runCache(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
  let run = try await NostrPushBinary.run(["cache"] + arguments)
  return (run.status, run.stdout, run.stderr)
}

@Suite(.timeLimit(.minutes(2))) struct CacheCommandTests {
  let folder: URL
  let path: String
  let pubkey = String(repeating: "ab", count: 32)

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    path = folder.appendingPathComponent("cache.sqlite").path
  }

  @Test func printsStatsWithKeysInContractOrder() async throws {
    #expect(try await runCache(["add-account", "--cache", path, "--pubkey", pubkey]).status == 0)
    let result = try await runCache(["stats", "--cache", path])
    #expect(result.status == 0)
    let prefix = #"{"profiles":0,"channels":0,"memberships":0,"avatars":0,"deliveries":0,"bytes":"#
    #expect(result.output.hasPrefix(prefix))
    let bytes = result.output.dropFirst(prefix.count).dropLast(2)
    let size = try #require(Int(bytes))
    let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    #expect(size == fileSize + walSize)
    #expect(result.output.hasSuffix("}\n"))
  }

  @Test func removesAndAddsAnAccount() async throws {
    let removed = try await runCache(["remove-account", "--cache", path, "--pubkey", pubkey])
    #expect(removed.status == 0)
    #expect(removed.output == "{\"removed\":true,\"rows\":0}\n")
    let added = try await runCache(["add-account", "--cache", path, "--pubkey", pubkey.uppercased()])
    #expect(added.status == 0)
    #expect(added.output == "{\"added\":true}\n")
  }

  @Test func refusesAMalformedPubkey() async throws {
    let result = try await runCache(["remove-account", "--cache", path, "--pubkey", "abc"])
    #expect(result.status == 1)
    #expect(result.output.isEmpty)
    #expect(result.errors.contains("--pubkey"))
  }

  @Test func reportsUsageErrors() async throws {
    #expect(try await runCache(["stats"]).status == 2)
    #expect(try await runCache(["compact", "--cache", path]).status == 2)
    #expect(try await runCache(["stats", "--cache", path, "--bogus", "1"]).status == 2)
  }

  @Test(arguments: [
    ("a text file", Array("not a cache, just words\n".utf8)),
    ("an empty file", []),
    (
      "an SQLite database of another schema",
      Array("SQLite format 3\u{0}".utf8) + [UInt8](repeating: 0, count: 84)
    ),
  ])
  func refusesStatsForAFileThatIsNotACacheAndLeavesItAlone(what: String, bytes: [UInt8]) async throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let result = try await runCache(["stats", "--cache", path])
    #expect(result.status == 1, "\(what)")
    #expect(result.output.isEmpty)
    #expect(result.errors.contains("corrupt") || result.errors.contains("storage"), "\(result.errors)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(left == ["cache.sqlite"], "nothing renamed, created or added beside it: \(left)")
  }

  @Test func statsOfACacheWritesNothing() async throws {
    #expect(try await runCache(["add-account", "--cache", path, "--pubkey", pubkey]).status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(try await runCache(["stats", "--cache", path]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == files)
  }

  @Test func refusesStatsForAMissingFile() async throws {
    let result = try await runCache(["stats", "--cache", path])
    #expect(result.status == 1)
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
