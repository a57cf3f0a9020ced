import Foundation
import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process a test starts (the CLI, a helper, `python3`), awaited without holding a
/// thread of Swift's cooperative pool: the one process runner of the package's tests.
///
/// The pool has as many threads as cores, and tests run in parallel on it; a blocking
/// `waitUntilExit()`, `readDataToEndOfFile()` or sleep holds one of those threads for as long as
/// the child runs, and every deadline timer and fixture client of the other tests then waits.
/// Here the exit arrives through `Process.terminationHandler`, and standard output and error are
/// drained by a reader thread each (plain `read(2)`, retried on `EINTR`), so a full pipe never
/// stalls the child and a signal never crashes the read.
public final class ChildProcess: @unchecked Sendable {
  // `@unchecked Sendable`: `process` is configured and started in `init` and afterwards only kept
  // alive (its exit comes through the handler's own argument); `exit`, `output` and `errors` are
  // `Sendable` boxes of their own.

  /// What the child reads on standard input.
  public enum Input: Sendable {
    /// Nothing: `/dev/null`.
    case none
    /// These bytes, from a temporary file (so a child that never reads cannot block a writer).
    case bytes([UInt8])
    /// A pipe the test writes to with ``write(_:)`` and ends with ``closeInput()``.
    case pipe
  }

  /// How the child ended and everything it wrote.
  public struct Exit: Sendable {
    /// The exit status, or the signal number when ``killedBySignal``.
    public var status: Int32
    /// Whether a signal ended the child (Foundation's `.uncaughtSignal`).
    public var killedBySignal: Bool
    /// Everything written to standard output.
    public var stdout: [UInt8]
    /// Everything written to standard error.
    public var stderr: [UInt8]

    /// Standard output as UTF-8 text.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as UTF-8 text.
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
  }

  /// The child's process id.
  public let processIdentifier: Int32

  private let process: Process
  private let input: FileHandle?
  private let exit = Awaited<(status: Int32, killedBySignal: Bool)>()
  private let output: DrainedPipe
  private let errors: DrainedPipe

  /// Starts `executable` with `arguments` and `input` on standard input; the start (writing the
  /// input file, spawning) runs through `BlockingWork`, off the cooperative pool.
  public static func start(_ executable: URL, _ arguments: [String], input: Input = .none) async throws
    -> ChildProcess
  {
    try await BlockingWork.run { () throws(any Error) in try ChildProcess(executable, arguments, input: input)
    }
  }

  private init(_ executable: URL, _ arguments: [String], input: Input) throws {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var inputFile: String? = nil
    switch input {
    case .none:
      process.standardInput = FileHandle.nullDevice
      self.input = nil
    case .bytes(let bytes):
      let path = NSTemporaryDirectory() + "child-process-" + UUID().uuidString + ".in"
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      process.standardInput = FileHandle(forReadingAtPath: path)
      inputFile = path
      self.input = nil
    case .pipe:
      let pipe = Pipe()
      process.standardInput = pipe
      self.input = pipe.fileHandleForWriting
    }
    defer { if let inputFile { try? FileManager.default.removeItem(atPath: inputFile) } }
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    let exit = self.exit
    process.terminationHandler = { ended in
      exit.resolve((ended.terminationStatus, ended.terminationReason == .uncaughtSignal))
    }
    try process.run()
    self.process = process
    processIdentifier = process.processIdentifier
    output = DrainedPipe(outputPipe.fileHandleForReading)
    errors = DrainedPipe(errorPipe.fileHandleForReading)
  }

  /// Runs `executable` with `arguments` and `input` to its end.
  public static func run(_ executable: URL, _ arguments: [String], input: Input = .none) async throws -> Exit
  {
    try await start(executable, arguments, input: input).exited()
  }

  /// Sends `signal` (such as `SIGTERM` or `SIGKILL`) to the child.
  public func send(_ signal: Int32) {
    kill(processIdentifier, signal)
  }

  /// Writes `bytes` to the child's standard input (``Input/pipe`` only; otherwise nothing),
  /// returning once the child has taken them into the pipe; the blocking write runs through
  /// `BlockingWork`, off the cooperative pool.
  public func write(_ bytes: [UInt8]) async {
    guard let input else { return }
    await BlockingWork.run { input.write(Data(bytes)) }
  }

  /// Ends the child's standard input (``Input/pipe`` only).
  public func closeInput() {
    try? input?.close()
  }

  /// Standard output up to and including its first newline (everything, when the child ends
  /// standard output before one): a server's `{"listening":…}` line.
  public func firstLine() async -> [UInt8] {
    let bytes = await output.bytes { $0.contains(0x0A) }
    guard let newline = bytes.firstIndex(of: 0x0A) else { return bytes }
    return Array(bytes[...newline])
  }

  /// Standard output as far as it has arrived.
  public func outputSoFar() async -> [UInt8] {
    await output.bytes { _ in true }
  }

  /// Returns once the child has written anything to standard output (or ended it).
  public func wroteOutput() async {
    _ = await output.bytes { !$0.isEmpty }
  }

  /// Awaits the child's end and the end of its standard output and error.
  public func exited() async -> Exit {
    let ended = await exit.value
    let stdout = await output.bytes { _ in false }
    let stderr = await errors.bytes { _ in false }
    return Exit(status: ended.status, killedBySignal: ended.killedBySignal, stdout: stdout, stderr: stderr)
  }
}

/// A value that arrives once, from any thread, and any number of tasks await.
private final class Awaited<Value: Sendable>: Sendable {
  private struct State {
    var value: Value?
    var waiting: [CheckedContinuation<Value, Never>] = []
  }

  private let state = Locked(State())

  var value: Value {
    get async {
      await withCheckedContinuation { continuation in
        let arrived = state.withLock { state -> Value? in
          if let value = state.value { return value }
          state.waiting.append(continuation)
          return nil
        }
        if let arrived { continuation.resume(returning: arrived) }
      }
    }
  }

  func resolve(_ value: Value) {
    let waiting = state.withLock { state in
      state.value = value
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume(returning: value) }
  }
}

/// The read end of a child's pipe, read to its end by a thread of its own; tasks await the bytes
/// until a condition on them holds or the pipe ends.
private final class DrainedPipe: Sendable {
  private struct Waiter {
    var condition: @Sendable ([UInt8]) -> Bool
    var continuation: CheckedContinuation<[UInt8], Never>
  }

  private struct State {
    var bytes: [UInt8] = []
    var ended = false
    var waiting: [Waiter] = []
  }

  private let state = Locked(State())

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      drain(handle)
    }
  }

  /// The bytes read so far once `condition` holds on them, or all of them once the pipe ended.
  func bytes(when condition: @escaping @Sendable ([UInt8]) -> Bool) async -> [UInt8] {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> [UInt8]? in
        if state.ended || condition(state.bytes) { return state.bytes }
        state.waiting.append(Waiter(condition: condition, continuation: continuation))
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  private func drain(_ handle: FileHandle) {
    let descriptor = handle.fileDescriptor
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      let chunk = count > 0 ? Array(buffer[..<count]) : []
      let ended = count <= 0
      let ready = state.withLock { state -> [(CheckedContinuation<[UInt8], Never>, [UInt8])] in
        state.bytes += chunk
        state.ended = ended
        var ready: [(CheckedContinuation<[UInt8], Never>, [UInt8])] = []
        state.waiting.removeAll { waiter in
          guard ended || waiter.condition(state.bytes) else { return false }
          ready.append((waiter.continuation, state.bytes))
          return true
        }
        return ready
      }
      for (continuation, bytes) in ready { continuation.resume(returning: bytes) }
      if ended { break }
    }
    try? handle.close()
  }
}
