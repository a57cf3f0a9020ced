import Foundation
import NostrPushTestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct VerifyCommandTests {
  static let sampleLines: [String] = {
    let url = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/events/sample.jsonl")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }()

  static let firstID = "dc90c95f09947507c1044e8f48bcf6350aa6bff1507dd4acfc755b9239b5c962"

  @Test func answersEveryNonBlankLineInOrder() async throws {
    let oversized = String(repeating: "x", count: 17 * 1024 * 1024)
    let uppercase = Self.sampleLines[0].replacingOccurrences(
      of: Self.firstID, with: Self.firstID.uppercased())
    let input = [
      Self.sampleLines[0], "", "   ", oversized, "garbage", uppercase, "{\"id\":7}", Self.sampleLines[4],
      Self.sampleLines[3],
    ].joined(separator: "\n")
    let run = try await NostrPushBinary.run(["verify", "--jsonl"], input: Array(input.utf8))
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

  @Test func exitsZeroWhenEveryEventIsValid() async throws {
    let input = Self.sampleLines[0...3].joined(separator: "\n") + "\n\n"
    let run = try await NostrPushBinary.run(["verify", "--jsonl", "-"], input: Array(input.utf8))
    #expect(run.stdout.split(separator: "\n").count == 4)
    #expect(run.stdout.split(separator: "\n").allSatisfy { $0.contains("\"valid\":true") })
    #expect(run.status == 0)
  }

  @Test func readsTheSampleFileByPath() async throws {
    let path = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/events/sample.jsonl").path
    let run = try await NostrPushBinary.run(["verify", "--jsonl", path])
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.count == 5)
    #expect(lines.filter { $0.contains("\"valid\":true") }.count == 4)
    #expect(lines[4].contains("\"error\":\"bad_signature\""))
    #expect(run.status == 1)
  }

  @Test func verifiesOneDocumentWithoutJSONL() async throws {
    let run = try await NostrPushBinary.run(["verify"], input: Array(Self.sampleLines[0].utf8))
    #expect(run.stdout == "{\"id\":\"\(Self.firstID)\",\"valid\":true,\"escaping\":\"common\"}\n")
    #expect(run.status == 0)
  }

  @Test func refusesAnOversizedDocumentWithoutJSONL() async throws {
    let input = [UInt8](repeating: UInt8(ascii: " "), count: 17 * 1024 * 1024)
    let run = try await NostrPushBinary.run(["verify"], input: input)
    #expect(run.stdout == "")
    #expect(run.stderr.contains("over the 16777216-byte limit"))
    #expect(run.status == 1)
  }

  @Test func refusesAnUnknownFlagWithUsageStatus() async throws {
    let run = try await NostrPushBinary.run(["verify", "--bogus"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("usage: nostr-push verify"))
  }

  /// Several thousand lines: the sample events with malformed JSON, id mismatches, bad
  /// signatures, blank lines and one over-long line interleaved, so batches end mid-pattern.
  static let mixedCorpus: [UInt8] = {
    var lines: [String] = []
    for index in 0..<4_000 {
      let sample = sampleLines[index % sampleLines.count]
      switch index % 7 {
      case 2: lines.append("garbage \(index)")
      case 4: lines.append(sample.replacingOccurrences(of: "\"created_at\":", with: "\"created_at\":1"))
      case 5: lines.append("")
      default: lines.append(sample)
      }
      if index == 1_500 { lines.append(String(repeating: "y", count: 17 * 1024 * 1024)) }
    }
    return Array(lines.joined(separator: "\n").utf8)
  }()

  @Test(arguments: [["--threads", "4"], ["--threads=2"], []])
  func writesTheSameOrderedOutputOnEveryThreadCount(threads: [String]) async throws {
    let single = try await NostrPushBinary.run(
      ["verify", "--jsonl", "--threads", "1"], input: Self.mixedCorpus)
    let parallel = try await NostrPushBinary.run(["verify", "--jsonl"] + threads, input: Self.mixedCorpus)
    #expect(parallel.stdout == single.stdout)
    #expect(parallel.status == 1)
    let lines = parallel.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let expectedLines: Int = 4_000 - 4_000 / 7 + 1 + 1
    #expect(lines.count == expectedLines)
    #expect(lines[0].hasPrefix("{\"id\":\"\(Self.firstID)\",\"valid\":true"))
    #expect(
      lines[2]
        == "{\"id\":null,\"valid\":false,\"error\":\"malformed_json\",\"message\":\"malformed JSON: unexpected character 'g' (byte 0)\"}"
    )
    #expect(lines[4].contains("\"error\":\"id_mismatch\""))
    #expect(lines.filter { $0.contains("over the 16777216-byte limit") }.count == 1)
    #expect(lines.filter { $0.contains("\"error\":\"bad_signature\"") }.count > 100)
  }

  @Test(arguments: ["1", "4"]) func answersAStreamThatNeverEndsALineWithOneError(threads: String) async throws
  {
    let input =
      Array(Self.sampleLines[1].utf8) + [0x0A]
      + [UInt8](repeating: UInt8(ascii: "z"), count: 40 * 1024 * 1024)
    let run = try await NostrPushBinary.run(["verify", "--jsonl", "--threads", threads], input: input)
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.first?.contains("\"valid\":true") == true)
    #expect(
      lines.last
        == "{\"id\":null,\"valid\":false,\"error\":\"malformed_json\",\"message\":\"line is over the 16777216-byte limit and was skipped\"}"
    )
    #expect(run.status == 1)
  }

  @Test(arguments: ["0", "65", "two", ""]) func refusesAThreadCountOutOfRange(threads: String) async throws {
    let run = try await NostrPushBinary.run(
      ["verify", "--jsonl", "--threads", threads], input: Array(Self.sampleLines[0].utf8))
    #expect(run.status == 2)
    #expect(run.stderr.contains("--threads must be an integer from 1 to 64"))
    #expect(run.stdout == "")
  }

  #if os(Linux)
  /// The peak resident set size of process `pid` in KiB (`VmHWM` in `/proc/<pid>/status`).
  static func peakResidentKiB(_ pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return Int(line.split(separator: " ").dropFirst().first ?? "")
  }

  /// A stream that keeps sending one line without ever ending it: while it is still open, the
  /// process has answered the line before it and its peak memory stays within the line limit,
  /// however much of the endless line arrived; once the stream ends, the line gets one error.
  @Test(arguments: ["1", "2"]) func keepsMemoryFlatWhileALineNeverEnds(threads: String) async throws {
    guard let binary = NostrPushBinary.url else { throw NostrPushBinary.MissingBinary() }
    let process = try await ChildProcess.start(
      binary, ["verify", "--jsonl", "--threads", threads], input: .pipe)
    await process.write(Array(Self.sampleLines[1].utf8) + [0x0A])
    // The answer to the first line comes before the stream goes on (the input would block).
    let answered = String(decoding: await process.firstLine(), as: UTF8.self)
    #expect(answered.contains("\"valid\":true"))
    let baseline = try #require(Self.peakResidentKiB(process.processIdentifier))
    let piece = [UInt8](repeating: UInt8(ascii: "z"), count: 1 << 20)
    let fed = 64
    for _ in 0..<fed { await process.write(piece) }
    let peak = try #require(Self.peakResidentKiB(process.processIdentifier))
    // Without the bound the process would hold all 64 MiB; with it, at most the 16 MiB limit.
    #expect(peak - baseline < (16 + 8) * 1024, "peak \(peak) KiB, baseline \(baseline) KiB")
    #expect(String(decoding: await process.outputSoFar(), as: UTF8.self) == answered)
    process.closeInput()
    let exit = await process.exited()
    let lines = exit.stdoutText.split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.last?.contains("line is over the 16777216-byte limit and was skipped") == true)
    #expect(exit.status == 1)
  }
  #endif
}
