import Foundation
import NostrEvent
import NostrPushTesting

extension BenchmarkRegistry {
  /// The whole-process rows of `Docs/Performance.md`: `nostr-push resolve` against the loopback fixture
  /// relay with a warm and a cold cache (wall time and peak RSS from `/usr/bin/time -v`), beside a
  /// process that only imports Foundation and makes one loopback `URLSession` request, measured
  /// alternately in the same run; and the peak RSS of `nostr-push verify --jsonl` for 1 000 000
  /// events beside its peak for 1 000.
  ///
  /// Warm cache: one cold `resolve` (with `--linger-ms`, so late enrichment lands) fills a template
  /// cache and claims the newest message; every warm repetition runs on a fresh copy of that
  /// template and so presents the next message (the demo's second wake), with profile, channel,
  /// membership and avatar all cached and fresh. Cold cache: a new, absent cache path each
  /// repetition. The relay runs in this process on `Fixtures/demo` with its clock fixed.
  static func processBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    guard FileManager.default.isExecutableFile(atPath: ProcessProbe.timePath) else {
      return ([], ["process rows skipped: \(ProcessProbe.timePath) not found"])
    }
    let folder = BenchBinaries.folder
    let nostrPush = folder.appendingPathComponent("nostr-push").path
    let baselineBinary = folder.appendingPathComponent("URLSessionBaseline").path
    for binary in [nostrPush, baselineBinary] where !FileManager.default.isExecutableFile(atPath: binary) {
      return (
        [],
        [
          "process rows skipped: \(binary) not found (swift build -c release --product nostr-push "
            + "--product URLSessionBaseline)"
        ]
      )
    }
    guard let demo = BenchBinaries.demoFolder() else {
      return ([], ["process rows skipped: Fixtures/demo not found above \(folder.path)"])
    }
    let fixture = try ResolveFixture(nostrPush: nostrPush, baseline: baselineBinary, demo: demo)
    let module = "nostr-push (process)"

    let warm = ProcessSamples<ProcessFigures>()
    let cold = ProcessSamples<ProcessFigures>()
    let warmWall = Benchmark(
      module: module, name: "resolve, warm cache: wall time of the whole process", unit: "ms",
      baselineName: "Foundation + one loopback URLSession GET", target: "≤ baseline + 40 ms",
      baseline: { try warm.runBaseline(fixture.runBaseline).wallMilliseconds },
      measured: { try warm.runMeasured(fixture.runWarm).wallMilliseconds },
      passes: { summary in summary.baselineMedian.map { summary.median <= $0 + 40 } })
    let warmRSS = Benchmark(
      module: module, name: "resolve, warm cache: peak RSS of the whole process", unit: "MiB",
      baselineName: "Foundation + one loopback URLSession GET", target: "≤ baseline + 8 MiB",
      baseline: { try warm.nextBaseline("rss").rssMiB }, measured: { try warm.nextMeasured("rss").rssMiB },
      passes: { summary in summary.baselineMedian.map { summary.median <= $0 + 8 } })
    let warmClock = Benchmark(
      module: module, name: "resolve, warm cache: wall time, monotonic clock around the process", unit: "ms",
      baselineName: "Foundation + one loopback URLSession GET", target: "report (finer than /usr/bin/time)",
      baseline: { try warm.nextBaseline("clock").clockMilliseconds },
      measured: { try warm.nextMeasured("clock").clockMilliseconds }, passes: { _ in nil })
    let coldWall = Benchmark(
      module: module, name: "resolve, cold cache: wall time of the whole process", unit: "ms",
      baselineName: "Foundation + one loopback URLSession GET", target: "report",
      baseline: { try cold.runBaseline(fixture.runBaseline).wallMilliseconds },
      measured: { try cold.runMeasured(fixture.runCold).wallMilliseconds },
      passes: { _ in nil })
    let coldRSS = Benchmark(
      module: module, name: "resolve, cold cache: peak RSS of the whole process", unit: "MiB",
      baselineName: "Foundation + one loopback URLSession GET", target: "≤ baseline + 8 MiB",
      baseline: { try cold.nextBaseline("rss").rssMiB }, measured: { try cold.nextMeasured("rss").rssMiB },
      passes: { summary in summary.baselineMedian.map { summary.median <= $0 + 8 } })

    let smallCount = 1_000
    let largeCount = quick ? 10_000 : 1_000_000
    let small = try VerifyCorpus.file(count: smallCount)
    let large = try VerifyCorpus.file(count: largeCount)
    let verify = Benchmark(
      module: module, name: "verify --jsonl, \(largeCount) events: peak RSS", unit: "MiB",
      baselineName: "the same command on \(smallCount) events", target: "≤ baseline + 4 MiB",
      baseline: { try ProcessProbe.run(nostrPush, ["verify", "--jsonl", small]).rssMiB },
      measured: { try ProcessProbe.run(nostrPush, ["verify", "--jsonl", large]).rssMiB },
      passes: { summary in summary.baselineMedian.map { summary.median <= $0 + 4 } })

    let notes = [
      "process rows: \(ProcessProbe.timePath) -v (\"Elapsed (wall clock)\", 10 ms resolution; \"Maximum "
        + "resident set size\"); relay = in-process RelayFixtureServer on \(fixture.origin) with Fixtures/demo, "
        + "--now \(ResolveFixture.now); warm = fresh copy of a cache filled by one earlier cold resolve "
        + "(which saw and claimed only broadcast_reply), so each warm run presents thread_reply (more_count 2) from cache; cold = new cache "
        + "path each run; baseline = \(baselineBinary) GET \(fixture.origin)/",
      "verify rows: corpora \(small) and \(large) (written once by --write-corpus, then reused)",
    ]
    return (
      [warmWall, warmRSS, warmClock, coldWall, coldRSS, verify], notes
    )
  }
}

/// Where the release products live: the folder of this benchmark executable.
enum BenchBinaries {
  /// The folder holding the running executable (`.build/release`).
  static var folder: URL {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
  }

  /// `Fixtures/demo` in the package that holds `folder` (walking up to `Package.swift`), or under the
  /// current directory.
  static func demoFolder() -> URL? {
    let manager = FileManager.default
    let current = URL(fileURLWithPath: manager.currentDirectoryPath).appendingPathComponent("Fixtures/demo")
    if manager.fileExists(atPath: current.appendingPathComponent("events.jsonl").path) { return current }
    var candidate = folder
    for _ in 0..<8 {
      if manager.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path) {
        let demo = candidate.appendingPathComponent("Fixtures/demo")
        return manager.fileExists(atPath: demo.path) ? demo : nil
      }
      candidate = candidate.deletingLastPathComponent()
    }
    return nil
  }
}

/// One process's figures from `/usr/bin/time -v`.
struct ProcessFigures {
  /// `Elapsed (wall clock)` from `/usr/bin/time -v` (10 ms resolution).
  var wallMilliseconds: Double
  /// This process's monotonic clock from spawning `/usr/bin/time` to its exit.
  var clockMilliseconds: Double
  var rssKiB: Double
  var output: String
  var rssMiB: Double { rssKiB / 1024 }
}

/// Runs a command under `/usr/bin/time -v` and reads its wall time and peak RSS.
enum ProcessProbe {
  static let timePath = "/usr/bin/time"

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Runs `binary arguments…` to completion; stdout is kept only when `keepOutput`.
  static func run(_ binary: String, _ arguments: [String], keepOutput: Bool = false) throws -> ProcessFigures
  {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nostrpush-probe-\(UUID().uuidString)")
    let outPath = scratch.path + ".out"
    let errPath = scratch.path + ".err"
    defer {
      try? FileManager.default.removeItem(atPath: outPath)
      try? FileManager.default.removeItem(atPath: errPath)
    }
    let (exitCode, clock) = try ChildProcess.run(
      [timePath, "-v", binary] + arguments, stdout: keepOutput ? outPath : nil, stderr: errPath)
    let report = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    let output = keepOutput ? ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "") : ""
    guard exitCode == 0, let wall = elapsedMilliseconds(report), let rss = maxRSS(report)
    else {
      throw Failure(
        description: "\(binary) \(arguments.joined(separator: " ")) exited \(exitCode): "
          + "\(report.suffix(600)) \(output.prefix(300))")
    }
    return ProcessFigures(wallMilliseconds: wall, clockMilliseconds: clock, rssKiB: rss, output: output)
  }

  /// `Elapsed (wall clock) time (h:mm:ss or m:ss): 0:00.12` → 120.
  static func elapsedMilliseconds(_ report: String) -> Double? {
    guard let line = report.split(separator: "\n").first(where: { $0.contains("Elapsed (wall clock)") }),
      let field = line.split(separator: " ").last
    else { return nil }
    var seconds = 0.0
    for part in field.split(separator: ":") {
      guard let value = Double(part) else { return nil }
      seconds = seconds * 60 + value
    }
    return seconds * 1000
  }

  /// `Maximum resident set size (kbytes): 12345` → 12345.
  static func maxRSS(_ report: String) -> Double? {
    guard let line = report.split(separator: "\n").first(where: { $0.contains("Maximum resident set size") }),
      let field = line.split(separator: " ").last
    else { return nil }
    return Double(field)
  }
}

/// The benchmarks' one process launcher: `posix_spawn` + `waitpid` rather than Foundation's
/// `Process`, whose `waitUntilExit` polls and would add tens of milliseconds to a timed run.
enum ChildProcess {
  /// Runs `argv` (`argv[0]` the executable's path) with standard input from `/dev/null` and
  /// standard output and error to the files `stdout` and `stderr` (`/dev/null` when nil), and
  /// waits for it; its exit status (128 + the signal when killed) and the monotonic milliseconds
  /// from spawning it to its exit.
  static func run(_ argv: [String], stdout: String?, stderr: String?) throws -> (
    exitCode: Int32, milliseconds: Double
  ) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_TRUNC | O_CREAT, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_TRUNC | O_CREAT, 0o600)
    let arguments = argv.map { strdup($0) } + [nil]
    defer { for pointer in arguments { free(pointer) } }
    var pid: pid_t = 0
    var status: Int32 = 0
    var spawnError: Int32 = 0
    let milliseconds =
      Stopwatch.seconds {
        spawnError = posix_spawn(&pid, argv[0], &actions, nil, arguments, environ)
        if spawnError == 0 {
          while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
      } * 1000
    guard spawnError == 0 else {
      throw ProcessProbe.Failure(description: "posix_spawn \(argv[0]): errno \(spawnError)")
    }
    let exitCode = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitCode, milliseconds)
  }
}

/// Figures of several rows taken from the same runs: the first row runs them and records each
/// figure in a named stream, the others read the recorded figures, in the same order (each
/// reader keeps its own position in each stream).
final class ProcessSamples<Figure> {
  private var streams: [String: [Figure]] = [:]
  private var positions: [String: Int] = [:]

  /// Runs `body` and records its figure in `stream`.
  func run(_ stream: String, _ body: () throws -> Figure) throws -> Figure {
    let figure = try body()
    streams[stream, default: []].append(figure)
    return figure
  }

  /// The next figure recorded in `stream` for `reader`.
  func next(_ stream: String, reader: String) throws -> Figure {
    let key = stream + " " + reader
    let recorded = streams[stream, default: []]
    let position = positions[key, default: 0]
    guard position < recorded.count else {
      throw ProcessProbe.Failure(description: "no recorded run for \(key)")
    }
    positions[key] = position + 1
    return recorded[position]
  }

  /// Runs one baseline repetition and records it.
  func runBaseline(_ body: () throws -> Figure) throws -> Figure { try run("baseline", body) }

  /// Runs one measured repetition and records it.
  func runMeasured(_ body: () throws -> Figure) throws -> Figure { try run("measured", body) }

  /// The next recorded baseline for `reader`.
  func nextBaseline(_ reader: String) throws -> Figure { try next("baseline", reader: reader) }

  /// The next recorded measured run for `reader`.
  func nextMeasured(_ reader: String) throws -> Figure { try next("measured", reader: reader) }
}

/// The fixture relay on `Fixtures/demo` and the cache files of the `resolve` rows.
final class ResolveFixture {
  /// The demo data's clock (T+600, `Fixtures/demo/README.md`).
  static let now: Int64 = 1_767_226_200
  /// The port the demo profile's avatar URL names (port 0 when it is taken: no avatar then).
  static let demoPort = 48111
  /// The `created_at` of the demo's newest message (the broadcast reply).
  static let newestMessageCreatedAt: Int64 = 1_767_226_100
  /// How long the template's cold resolve may keep writing late enrichment.
  static let lingerMilliseconds = 3000

  let nostrPush: String
  let baseline: String
  let keyFile: String
  let workspace: URL
  let server: RelayFixtureServer
  let origin: String
  let template: String
  private var runNumber = 0

  init(nostrPush: String, baseline: String, demo: URL) throws {
    self.nostrPush = nostrPush
    self.baseline = baseline
    keyFile = demo.appendingPathComponent("account.key").path
    workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nostrpush-process-bench")
    try? FileManager.default.removeItem(at: workspace)
    try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    let data = try RelayFixtureData.load(folder: demo)
    (server, origin) = try Self.startServer(data)
    template = workspace.appendingPathComponent("warm-template.sqlite").path
    // The template's wake sees only the newest message (a `since` past the others), so a warm
    // wake still has three new ones and presents the next (a wake covers every new message).
    let newestOnly = workspace.appendingPathComponent("newest-only.json").path
    let account = try SecretKey(
      hex: String(decoding: try Data(contentsOf: URL(fileURLWithPath: keyFile)), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines))
    try Data(
      "[{\"kinds\":[9],\"#p\":[\"\(account.publicKeyHex)\"],\"since\":\(Self.newestMessageCreatedAt)}]".utf8
    ).write(to: URL(fileURLWithPath: newestOnly))
    let first = try ProcessProbe.run(
      nostrPush,
      resolveArguments(cache: template) + [
        "--linger-ms", "\(Self.lingerMilliseconds)", "--filters", newestOnly,
      ],
      keepOutput: true)
    try Self.expectResolved(first.output, enrichment: nil, what: "template (cold) resolve")
  }

  deinit {
    let server = self.server
    try? blockingRun { await server.stop() }
  }

  private static func startServer(_ data: RelayFixtureData) throws -> (RelayFixtureServer, String) {
    for port in [demoPort, 0] {
      let server = RelayFixtureServer(
        data: data, configuration: RelayFixtureConfiguration(port: port, now: now))
      do {
        _ = try blockingRun { try await server.start() }
      } catch {
        if port == 0 || (error as? RelayFixtureError)?.code != .addressInUse { throw error }
        continue
      }
      return (server, server.origin ?? "")
    }
    throw ProcessProbe.Failure(description: "cannot start the fixture relay")
  }

  private func resolveArguments(cache: String) -> [String] {
    ["resolve", "--relay", origin, "--secret-key-file", keyFile, "--cache", cache, "--now", "\(Self.now)"]
  }

  private func nextPath(_ label: String) -> String {
    runNumber += 1
    return workspace.appendingPathComponent("\(label)-\(runNumber).sqlite").path
  }

  func runBaseline() throws -> ProcessFigures {
    try ProcessProbe.run(baseline, [origin + "/"])
  }

  func runWarm() throws -> ProcessFigures {
    let path = nextPath("warm")
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: template + suffix) {
      try FileManager.default.copyItem(atPath: template + suffix, toPath: path + suffix)
    }
    let figures = try ProcessProbe.run(nostrPush, resolveArguments(cache: path), keepOutput: true)
    try Self.expectResolved(figures.output, enrichment: "cache_fresh", what: "warm resolve")
    return figures
  }

  func runCold() throws -> ProcessFigures {
    let figures = try ProcessProbe.run(nostrPush, resolveArguments(cache: nextPath("cold")), keepOutput: true)
    try Self.expectResolved(figures.output, enrichment: nil, what: "cold resolve")
    return figures
  }

  /// A row that timed a fallback would measure the wrong thing: refuse it.
  private static func expectResolved(_ output: String, enrichment: String?, what: String) throws {
    guard output.contains("\"resolved\":true"),
      enrichment.map({ output.contains("\"enrichment\":\"\($0)\"") }) ?? true
    else {
      throw ProcessProbe.Failure(description: "\(what) did not resolve as expected: \(output.prefix(400))")
    }
  }
}

/// The JSON Lines corpora of the `verify --jsonl` memory row, written once and reused.
enum VerifyCorpus {
  static func file(count: Int) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nostr-push-verify-\(count).jsonl"
    )
    .path
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    if size == 0 {
      try CorpusWriter.write(count: count, to: path + ".partial")
      try FileManager.default.moveItem(atPath: path + ".partial", toPath: path)
    }
    return path
  }
}

extension DecodedSignatures {
  /// The signatures of every event in a JSON Lines file, for the whole-process `verify` rows.
  init(jsonLinesFile path: String) throws {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    self.init(try bytes.split(separator: 0x0A).map { try Event(json: Array($0)) })
  }
}
