import Foundation
import NostrPushTestSupport

/// Finds the built `nostr-push` executable and runs it with files or bytes on standard input,
/// through the tests' one process runner (`ChildProcess`), which awaits the process without
/// holding a cooperative thread.
enum NostrPushBinary {
  /// Starts `nostr-push arguments…` as a long-running server and returns the process with the
  /// first line it printed (its `{"listening":…}` line); nil when the binary was not built.
  static func startServer(_ arguments: [String]) async throws -> (process: ChildProcess, firstLine: [UInt8])?
  {
    guard let binary = url else { return nil }
    let process = try await ChildProcess.start(binary, arguments)
    return (process, await process.firstLine())
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

  /// Runs `nostr-push arguments…` with `input` as standard input and awaits its end.
  static func run(_ arguments: [String], input: [UInt8] = []) async throws -> Run {
    guard let binary = url else { throw MissingBinary() }
    let exit = try await ChildProcess.run(binary, arguments, input: .bytes(input))
    return Run(status: exit.status, stdout: exit.stdoutText, stderr: exit.stderrText)
  }

  /// Runs `nostr-push arguments…` with `input` bytes as standard input.
  static func run(_ arguments: [String], input: Data) async throws -> Run {
    try await run(arguments, input: Array(input))
  }

  /// The package root (the folder holding Package.swift above this file).
  static var packageRoot: URL { PackageRoot.url }

  struct MissingBinary: Error, CustomStringConvertible {
    var description: String { "nostr-push was not built next to the test bundle" }
  }
}
