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

/// A running helper process whose standard output is collected.
final class HelperProcess: @unchecked Sendable {
  let process = Process()
  private let output = Pipe()
  private let errors = Pipe()

  init(_ arguments: [String]) throws {
    process.executableURL = try stressHelperURL()
    process.arguments = arguments
    process.standardOutput = output
    process.standardError = errors
    try process.run()
  }

  private var head = Data()

  /// Blocks until the helper has written something (or exited).
  func waitForOutput() {
    head = output.fileHandleForReading.availableData
  }

  /// Waits for the exit and returns (status, complete stdout lines, stderr).
  func finish() -> (status: Int32, lines: [String], errors: String) {
    let data = head + output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    if !text.hasSuffix("\n"), !lines.isEmpty { lines.removeLast() }
    return (process.terminationStatus, lines, String(decoding: errorData, as: UTF8.self))
  }
}

/// Runs blocking work (process waits, sleeps) on its own thread so that it does not hold one of the
/// few cooperative threads other tests' tasks need.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
  }
}

@Suite struct MultiProcessTests {
  let stressRelay = try! RelayOrigin("wss://stress.example")

  @Test func twoProcessesWritingAtOnceLoseNothing() async throws {
    try await onThread { try twoProcessesWriting() }
  }

  func twoProcessesWriting() throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    let count = 10_000
    let writers = try (1...2).map { writer in
      try HelperProcess(["write", folder.path(), account, "\(writer)", "\(count)"])
    }
    let results = writers.map { $0.finish() }
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
    try await onThread { try killingWriters() }
  }

  func killingWriters() throws {
    let folder = try TemporaryFolder()
    let account = randomHex()
    var acknowledged: [String] = []
    for round in 0..<50 {
      let writer = try HelperProcess(["write", folder.path(), account, "\(round % 200)", "100000"])
      // Odd rounds kill at a random time from the start (often while opening or migrating), even
      // rounds a random time after the first acknowledged write (in the middle of the writes).
      if round % 2 == 0 { writer.waitForOutput() }
      // Not a wait for anything: the random moment of the kill is what the test varies.
      Thread.sleep(forTimeInterval: Double.random(in: round % 2 == 0 ? 0...0.030 : 0.010...0.150))
      kill(writer.process.processIdentifier, SIGKILL)
      let result = writer.finish()
      #expect(result.status == SIGKILL)
      #expect(writer.process.terminationReason == .uncaughtSignal)
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
