import Foundation
import NostrEvent
import NostrPushTestSupport
import Testing

@testable import EnrichmentCache

/// The `CacheStressHelper` executable built next to the test bundle (`.build/<config>/`).
func stressHelperURL() throws -> URL {
  guard let built = PackageRoot.builtExecutable("CacheStressHelper") else {
    throw CacheError(code: .storage, message: "CacheStressHelper is not built; run `swift build` first")
  }
  return built
}

/// Runs a `CacheStressHelper` to its end: its status, complete stdout lines and stderr.
func finished(_ helper: ChildProcess) async -> (status: Int32, killed: Bool, lines: [String], errors: String)
{
  let exit = await helper.exited()
  let text = exit.stdoutText
  var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
  if !text.hasSuffix("\n"), !lines.isEmpty { lines.removeLast() }
  return (exit.status, exit.killedBySignal, lines, exit.stderrText)
}

@Suite struct MultiProcessTests {
  let stressRelay = try! RelayOrigin("wss://stress.example")

  @Test func twoProcessesWritingAtOnceLoseNothing() async throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    let count = 10_000
    let helper = try stressHelperURL()
    var writers: [ChildProcess] = []
    for writer in 1...2 {
      writers.append(
        try await ChildProcess.start(helper, ["write", folder.path(), account, "\(writer)", "\(count)"]))
    }
    var results: [(status: Int32, killed: Bool, lines: [String], errors: String)] = []
    for writer in writers { results.append(await finished(writer)) }
    for result in results {
      #expect(result.status == 0, "helper failed: \(result.errors)")
      #expect(result.lines.count == count)
      #expect(!result.errors.contains("busy"))
    }
    let cache = try EnrichmentCache(path: folder.path())
    #expect(try cache.stats().profiles == 2 * count)
    for writer in 1...2 {
      for index in stride(from: 0, to: count, by: 997) {
        let pubkey = String(format: "%02x%062x", writer, index)
        let found = try cache.lookupProfile(
          account: account, relay: stressRelay, pubkey: pubkey, now: testNow)
        #expect(found?.value.displayName == "writer \(writer) record \(index)")
      }
    }
    #expect(rawPragma(folder.path(), "PRAGMA integrity_check") == "ok")
  }

  @Test func aWriterKilledMidWriteLeavesAnIntactFileWithEveryAcknowledgedRecord() async throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    let helper = try stressHelperURL()
    var acknowledged: [String] = []
    for round in 0..<50 {
      let writer = try await ChildProcess.start(
        helper, ["write", folder.path(), account, "\(round % 200)", "100000"])
      // Odd rounds kill at a random time from the start (often while opening or migrating), even
      // rounds a random time after the first acknowledged write (in the middle of the writes).
      if round % 2 == 0 { await writer.wroteOutput() }
      // Not a wait for anything: the random moment of the kill is what the test varies.
      let pause = Int.random(in: round % 2 == 0 ? 0...30 : 10...150)
      try await Task.sleep(for: .milliseconds(pause))
      writer.send(SIGKILL)
      let result = await finished(writer)
      #expect(result.status == SIGKILL)
      #expect(result.killed)
      acknowledged += result.lines
      guard FileManager.default.fileExists(atPath: folder.path()) else { continue }
      #expect(rawPragma(folder.path(), "PRAGMA integrity_check") == "ok", "round \(round)")
    }
    let cache = try EnrichmentCache(path: folder.path())
    var missing: [String] = []
    for pubkey in acknowledged
    where try cache.lookupProfile(account: account, relay: stressRelay, pubkey: pubkey, now: testNow) == nil {
      missing.append(pubkey)
    }
    #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged records are missing")
    #expect(!acknowledged.isEmpty)
    #expect(try cache.stats().profiles >= acknowledged.count)
  }
}
