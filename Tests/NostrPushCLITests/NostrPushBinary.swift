import Foundation

/// Finds the built `nostr-push` executable and runs it with files or bytes on standard input.
enum NostrPushBinary {
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

  /// Runs `nostr-push arguments…` with `input` as standard input (written to a temporary file
  /// first, so a large input cannot deadlock the pipes).
  static func run(_ arguments: [String], input: [UInt8] = []) throws -> Run {
    guard let url else { throw MissingBinary() }
    let inputFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("nostr-push-input-\(UUID().uuidString)")
    try Data(input).write(to: inputFile)
    defer { try? FileManager.default.removeItem(at: inputFile) }
    let process = Process()
    process.executableURL = url
    process.arguments = arguments
    process.standardInput = try FileHandle(forReadingFrom: inputFile)
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let errorData = ErrorCollector(stderr.fileHandleForReading)
    let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
      stderr: String(decoding: errorData.wait(), as: UTF8.self))
  }

  /// Runs `nostr-push arguments…` with `input` bytes as standard input.
  static func run(_ arguments: [String], input: Data) throws -> Run {
    try run(arguments, input: Array(input))
  }

  /// The package root (the folder holding Package.swift above this file).
  static let packageRoot: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while folder.path != "/" {
      if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        return folder
      }
      folder = folder.deletingLastPathComponent()
    }
    return folder
  }()

  struct MissingBinary: Error, CustomStringConvertible {
    var description: String { "nostr-push was not built next to the test bundle" }
  }
}

/// Reads a pipe to its end on another thread, so that stdout and stderr drain together.
///
/// `@unchecked Sendable`: `data` is written by the reading thread before `done` is signalled
/// and read only after waiting for it.
private final class ErrorCollector: @unchecked Sendable {
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      data = handle.readDataToEndOfFile()
      done.signal()
    }
  }

  func wait() -> Data {
    done.wait()
    return data
  }
}
