import Foundation
import NostrEvent

/// The baseline of the whole-process `verify --jsonl` rows: the raw libsecp256k1 loop
/// (`DecodedSignatures.verify`) run as N processes of this benchmark, one per core, started
/// together (`Docs/Performance.md`: "the raw loop run on N cores at once, one process per core").
///
/// Each child (`nostr-push-bench --raw-loop FILE K N`) decodes the corpus, says `ready`, waits
/// for one byte on its standard input, checks the signatures of its slice `K` of `N` and prints
/// the seconds that took. The parent starts the N children, waits until every one is ready,
/// then releases them at once; the figure is the corpus' events over the slowest child's time
/// (the loops end when the last one does, as a process that verifies the corpus on N cores
/// does). Decoding, which the raw loop does not count, happens before the start.
struct RawLoopProcesses {
  /// The JSON Lines corpus every child decodes.
  var file: String
  /// The number of events in it.
  var count: Int

  /// Events per second of `processes` raw loops started together over the corpus.
  func eventsPerSecond(processes: Int) throws -> Double {
    let binary = BenchBinaries.folder.appendingPathComponent("nostr-push-bench").path
    var children: [Child] = []
    defer { for child in children { child.reap() } }
    for slice in 0..<processes {
      children.append(try Child(binary, ["--raw-loop", file, String(slice), String(processes)]))
    }
    for child in children {
      guard try child.readLine() == "ready" else { throw failure("a raw-loop child did not start") }
    }
    for child in children { try child.release() }
    var slowest = 0.0
    for child in children {
      guard let seconds = Double(try child.readLine()), seconds > 0 else {
        throw failure("a raw-loop child gave no time")
      }
      slowest = max(slowest, seconds)
    }
    return Double(count) / slowest
  }

  /// The child's side: decodes `file`, waits for the start byte, checks slice `slice` of
  /// `slices` and prints its seconds.
  static func runChild(file: String, slice: Int, slices: Int) throws {
    let decoded = try DecodedSignatures(jsonLinesFile: file)
    let range = (decoded.count * slice / slices)..<(decoded.count * (slice + 1) / slices)
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var byte: UInt8 = 0
    guard read(STDIN_FILENO, &byte, 1) == 1 else { return }
    let seconds = Stopwatch.seconds { decoded.verify(range) }
    FileHandle.standardOutput.write(Data("\(seconds)\n".utf8))
  }

  private func failure(_ message: String) -> ProcessProbe.Failure {
    ProcessProbe.Failure(description: "\(message) (\(file))")
  }

  /// One child with pipes to its standard input and output.
  private final class Child {
    let pid: pid_t
    let input: Int32
    let output: Int32
    private var buffered: [UInt8] = []
    private var reaped = false

    init(_ binary: String, _ arguments: [String]) throws {
      var toChild: [Int32] = [0, 0]
      var fromChild: [Int32] = [0, 0]
      guard pipe(&toChild) == 0 else { throw ProcessProbe.Failure(description: "pipe: errno \(errno)") }
      guard pipe(&fromChild) == 0 else {
        close(toChild[0])
        close(toChild[1])
        throw ProcessProbe.Failure(description: "pipe: errno \(errno)")
      }
      // Close-on-exec, so that no child inherits another's pipes (dup2 clears it on 0 and 1).
      for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
      posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
      let argv = ([binary] + arguments).map { strdup($0) } + [nil]
      defer { for pointer in argv { free(pointer) } }
      var pid: pid_t = 0
      let spawned = posix_spawn(&pid, binary, &actions, nil, argv, environ)
      close(toChild[0])
      close(fromChild[1])
      guard spawned == 0 else {
        close(toChild[1])
        close(fromChild[0])
        throw ProcessProbe.Failure(description: "posix_spawn \(binary): errno \(spawned)")
      }
      self.pid = pid
      input = toChild[1]
      output = fromChild[0]
    }

    /// The child's next line of output (without the newline); empty at its end.
    func readLine() throws -> String {
      while true {
        if let newline = buffered.firstIndex(of: 0x0A) {
          let line = String(decoding: buffered[..<newline], as: UTF8.self)
          buffered.removeSubrange(...newline)
          return line
        }
        var chunk = [UInt8](repeating: 0, count: 256)
        let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return String(decoding: buffered, as: UTF8.self) }
        buffered += chunk[..<count]
      }
    }

    /// Sends the start byte.
    func release() throws {
      var byte: UInt8 = 0x0A
      guard write(input, &byte, 1) == 1 else {
        throw ProcessProbe.Failure(description: "write to a raw-loop child: errno \(errno)")
      }
    }

    /// Closes the pipes and waits for the child (which exits once its input closes).
    func reap() {
      guard !reaped else { return }
      reaped = true
      close(input)
      close(output)
      var status: Int32 = 0
      while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
  }
}
