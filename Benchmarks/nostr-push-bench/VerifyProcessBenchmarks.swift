import Foundation
import NostrEvent

extension BenchmarkRegistry {
  /// The whole-process `verify --jsonl` rows of `Docs/Performance.md` (`--only verify`): the
  /// `nostr-push verify --jsonl` process with `--threads 1`, `--threads 2` and on all cores (no
  /// flag), each beside the raw libsecp256k1 loop run as as many processes, started together
  /// (`RawLoopProcesses`), the two measured one after the other in every repetition; and, as a
  /// report, what the raw loops on all cores give against one.
  static func verifyProcessBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let nostrPush = BenchBinaries.folder.appendingPathComponent("nostr-push").path
    guard FileManager.default.isExecutableFile(atPath: nostrPush) else {
      return (
        [], ["verify rows skipped: \(nostrPush) not found (swift build -c release --product nostr-push)"]
      )
    }
    let module = "nostr-push verify (process)"
    let count = quick ? 2_000 : 20_000
    let file = try VerifyCorpus.file(count: count)
    let raw = RawLoopProcesses(file: file, count: count)
    let cores = BatchVerifier.activeCores
    // Each pair (raw loops, then the process) takes about two seconds; nine of them let the
    // median set aside the repetitions that a burst of the host's noise hit on one side.
    let repetitions = 9
    let rawRuns = ProcessSamples<Double>()
    let variants: [(label: String, flags: [String], processes: Int, factor: Double)] = [
      ("--threads 1", ["--threads", "1"], 1, 0.90),
      ("--threads 2", ["--threads", "2"], 2, 0.85),
      ("all cores: \(cores)", [], cores, 0.85),
    ]
    let rows = variants.map { variant in
      Benchmark(
        module: module, name: "verify --jsonl (\(variant.label)), \(count) events: whole process",
        unit: "events/s",
        baselineName: "raw libsecp256k1 loop, \(variant.processes) process(es) started together",
        target: "≥ \(variant.factor) × baseline",
        baseline: {
          try rawRuns.run("raw \(variant.processes)") {
            try raw.eventsPerSecond(processes: variant.processes)
          }
        },
        measured: {
          let run = try ProcessProbe.run(nostrPush, ["verify", "--jsonl"] + variant.flags + [file])
          return Double(count) / (run.clockMilliseconds / 1000)
        },
        passes: { summary in summary.ratio.map { $0 >= variant.factor } },
        minimumRepetitions: repetitions)
    }
    // What the all-cores target stands on: on a shared host a second busy core can run
    // markedly slower than one alone. Read from the rows' own baseline runs (the one-process
    // run of a repetition of the first row beside the all-cores run of the same repetition of
    // the last, a minute or so apart).
    let platform = Benchmark(
      module: module, name: "raw libsecp256k1 loop on all cores (\(cores) processes), \(count) events",
      unit: "events/s", baselineName: "the same loop, one process",
      target: "report (what the cores give together)",
      baseline: { try rawRuns.next("raw 1", reader: "platform") },
      measured: { try rawRuns.next("raw \(cores)", reader: "platform") }, passes: { _ in nil },
      minimumRepetitions: repetitions)
    let notes = [
      "verify rows: corpus \(file); process = \(nostrPush) verify --jsonl [--threads N] under "
        + "\(ProcessProbe.timePath) -v, timed from spawn to exit; raw loop = nostr-push-bench --raw-loop "
        + "(each child decodes the corpus, then all check their slices at once; the slowest child's time)"
    ]
    return (rows + [platform], notes)
  }
}
