import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct VerifyCommandTests {
  static let sampleLines: [String] = {
    let url = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/events/sample.jsonl")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }()

  static let firstID = "dc90c95f09947507c1044e8f48bcf6350aa6bff1507dd4acfc755b9239b5c962"

  @Test func answersEveryNonBlankLineInOrder() throws {
    let oversized = String(repeating: "x", count: 17 * 1024 * 1024)
    let uppercase = Self.sampleLines[0].replacingOccurrences(
      of: Self.firstID, with: Self.firstID.uppercased())
    let input = [
      Self.sampleLines[0], "", "   ", oversized, "garbage", uppercase, "{\"id\":7}", Self.sampleLines[4],
      Self.sampleLines[3],
    ].joined(separator: "\n")
    let run = try NostrPushBinary.run(["verify", "--jsonl"], input: Array(input.utf8))
    let expected = [
      "{\"id\":\"\(Self.firstID)\",\"valid\":true,\"escaping\":\"common\"}",
      "{\"id\":null,\"valid\":false,\"error\":\"malformed_json\",\"message\":\"line is over the 16777216-byte limit and was skipped\"}",
      "{\"id\":null,\"valid\":false,\"error\":\"malformed_json\",\"message\":\"malformed JSON: unexpected character 'g' (byte 0)\"}",
      "{\"id\":\"\(Self.firstID.uppercased())\",\"valid\":false,\"error\":\"invalid_field\",\"message\":\"id: expected 64 lowercase hex characters\"}",
      "{\"id\":null,\"valid\":false,\"error\":\"invalid_field\",\"message\":\"id: expected a string, got integer\"}",
      "{\"id\":\"\(Self.firstID)\",\"valid\":false,\"error\":\"bad_signature\",\"message\":\"signature does not verify for the id and pubkey\"}",
      "{\"id\":\"72da3bdd773c159ebfa6d08c75946e6b4c2bab6f4fb79e01516e718603ff6cc0\",\"valid\":true,\"escaping\":\"common\"}",
    ]
    #expect(
      run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == expected + [""])
    #expect(run.status == 1)
  }

  @Test func exitsZeroWhenEveryEventIsValid() throws {
    let input = Self.sampleLines[0...3].joined(separator: "\n") + "\n\n"
    let run = try NostrPushBinary.run(["verify", "--jsonl", "-"], input: Array(input.utf8))
    #expect(run.stdout.split(separator: "\n").count == 4)
    #expect(run.stdout.split(separator: "\n").allSatisfy { $0.contains("\"valid\":true") })
    #expect(run.status == 0)
  }

  @Test func readsTheSampleFileByPath() throws {
    let path = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/events/sample.jsonl").path
    let run = try NostrPushBinary.run(["verify", "--jsonl", path])
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.count == 5)
    #expect(lines.filter { $0.contains("\"valid\":true") }.count == 4)
    #expect(lines[4].contains("\"error\":\"bad_signature\""))
    #expect(run.status == 1)
  }

  @Test func verifiesOneDocumentWithoutJSONL() throws {
    let run = try NostrPushBinary.run(["verify"], input: Array(Self.sampleLines[0].utf8))
    #expect(run.stdout == "{\"id\":\"\(Self.firstID)\",\"valid\":true,\"escaping\":\"common\"}\n")
    #expect(run.status == 0)
  }

  @Test func refusesAnOversizedDocumentWithoutJSONL() throws {
    let input = [UInt8](repeating: UInt8(ascii: " "), count: 17 * 1024 * 1024)
    let run = try NostrPushBinary.run(["verify"], input: input)
    #expect(run.stdout == "")
    #expect(run.stderr.contains("over the 16777216-byte limit"))
    #expect(run.status == 1)
  }

  @Test func refusesAnUnknownFlagWithUsageStatus() throws {
    let run = try NostrPushBinary.run(["verify", "--bogus"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("usage: nostr-push verify"))
  }
}
