import Foundation
import NostrPushTestSupport

/// Finds the built `nostr-push` executable and runs it with files or bytes on standard input.
enum NostrPushBinary {
  /// Starts `nostr-push arguments…` as a long-running server and returns the process with the
  /// first line it printed (its `{"listening":…}` line, read byte by byte so nothing after it is
  /// consumed); nil when the binary was not built.
  static func startServer(_ arguments: [String]) throws -> (process: Process, firstLine: [UInt8])? {
    guard let binary = url else { return nil }
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
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
    return (process, line)
  }

  /// The executable next to the test bundle (`.build/<config>/nostr-push`).
  static let url: URL? = {
    var candidates: [URL] = []
    let bundle = Bundle.main.bundleURL
    candidates.append(bundle.appendingPathComponent("nostr-push"))
    candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("nostr-push"))
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("nostr-push"))
    }
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    candidates.append(runner.appendingPathComponent("nostr-push"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  /// The result of one run.
  struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs `nostr-push arguments…` with `input` as standard input and waits for it.
  ///
  /// Standard input, output and error are temporary files, read only after the process has
  /// exited: a pipe read interrupted by a signal (`EINTR`) makes Foundation's
  /// `readDataToEndOfFile` crash, and a large output cannot deadlock a pipe.
  static func run(_ arguments: [String], input: [UInt8] = []) throws -> Run {
    let files = try RunFiles(input: input)
    defer { files.remove() }
    let process = try files.process(arguments)
    try process.run()
    process.waitUntilExit()
    return files.result(status: process.terminationStatus)
  }

  /// Like `run(_:input:)`, but suspends instead of blocking a thread while the process runs, so
  /// async tests beside it keep their cooperative threads.
  static func runAsync(_ arguments: [String], input: [UInt8] = []) async throws -> Run {
    let files = try RunFiles(input: input)
    defer { files.remove() }
    let process = try files.process(arguments)
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    return files.result(status: status)
  }

  /// Runs `nostr-push arguments…` with `input` bytes as standard input.
  static func run(_ arguments: [String], input: Data) throws -> Run {
    try run(arguments, input: Array(input))
  }

  /// The package root (the folder holding Package.swift above this file).
  static var packageRoot: URL { PackageRoot.url }

  struct MissingBinary: Error, CustomStringConvertible {
    var description: String { "nostr-push was not built next to the test bundle" }
  }
}

/// The temporary files that stand in for one run's standard input, output and error.
private struct RunFiles {
  let base: String

  init(input: [UInt8]) throws {
    base = NSTemporaryDirectory() + "nostr-push-run-" + UUID().uuidString
    try Data(input).write(to: URL(fileURLWithPath: base + ".in"))
    _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
    _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
  }

  func process(_ arguments: [String]) throws -> Process {
    guard let url = NostrPushBinary.url else { throw NostrPushBinary.MissingBinary() }
    let process = Process()
    process.executableURL = url
    process.arguments = arguments
    process.standardInput = FileHandle(forReadingAtPath: base + ".in")
    process.standardOutput = FileHandle(forWritingAtPath: base + ".out")
    process.standardError = FileHandle(forWritingAtPath: base + ".err")
    return process
  }

  func result(status: Int32) -> NostrPushBinary.Run {
    let output = FileManager.default.contents(atPath: base + ".out") ?? Data()
    let errors = FileManager.default.contents(atPath: base + ".err") ?? Data()
    return NostrPushBinary.Run(
      status: status, stdout: String(decoding: output, as: UTF8.self),
      stderr: String(decoding: errors, as: UTF8.self))
  }

  func remove() {
    for suffix in [".in", ".out", ".err"] { try? FileManager.default.removeItem(atPath: base + suffix) }
  }
}
