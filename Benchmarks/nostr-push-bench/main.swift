import Foundation
import NostrEvent

// nostr-push-bench [--quick] [--json] [--only event|bech32|descriptor|cache|process|verify|resolve|nip44|giftwrap|pushrelay|pushload|pipeline|postgres|social|gateway|service] [--write-corpus N FILE]
// Prints every performance figure beside its baseline measured in the same run (Docs/Performance.md).

let arguments = Array(CommandLine.arguments.dropFirst())
let quick = arguments.contains("--quick")
let asJSON = arguments.contains("--json")

if let flag = arguments.firstIndex(of: "--write-corpus") {
  guard flag + 2 < arguments.count, let count = Int(arguments[flag + 1]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: nostr-push-bench --write-corpus N FILE\n".utf8))
    exit(2)
  }
  try CorpusWriter.write(count: count, to: arguments[flag + 2])
  exit(0)
}

if let flag = arguments.firstIndex(of: "--raw-loop") {
  // One child of the whole-process verify rows' baseline (`RawLoopProcesses`).
  guard flag + 3 < arguments.count, let slice = Int(arguments[flag + 2]),
    let slices = Int(arguments[flag + 3]),
    slices > 0, (0..<slices).contains(slice)
  else {
    FileHandle.standardError.write(Data("usage: nostr-push-bench --raw-loop FILE SLICE SLICES\n".utf8))
    exit(2)
  }
  try RawLoopProcesses.runChild(file: arguments[flag + 1], slice: slice, slices: slices)
  exit(0)
}

if let flag = arguments.firstIndex(of: "--profile"), flag + 1 < arguments.count {
  // A single workload with nothing else around it, for `perf record` or `valgrind --tool=callgrind`.
  try Profiling.run(arguments[flag + 1], quick: quick)
  exit(0)
}

let runner = BenchmarkRunner(repetitions: BenchmarkRunner.minimumRepetitions)
var summaries: [BenchmarkSummary] = []
var notes: [String] = []
// Each module adds its rows here: `("<key>", BenchmarkRegistry.<module>Benchmarks)`; `--only KEY`
// runs one module's rows (e.g. `--only process` for the whole-process rows).
let modules: [(key: String, rows: (Bool) throws -> (rows: [Benchmark], notes: [String]))] = [
  ("event", BenchmarkRegistry.nostrEventBenchmarks),
  ("bech32", BenchmarkRegistry.bech32Benchmarks),
  ("descriptor", BenchmarkRegistry.pushDescriptorBenchmarks),
  ("cache", BenchmarkRegistry.enrichmentCacheBenchmarks),
  ("process", BenchmarkRegistry.processBenchmarks),
  ("verify", BenchmarkRegistry.verifyProcessBenchmarks),
  ("resolve", BenchmarkRegistry.resolveBenchmarks),
  ("nip44", BenchmarkRegistry.nip44Benchmarks),
  ("giftwrap", BenchmarkRegistry.giftWrapBenchmarks),
  ("pushrelay", BenchmarkRegistry.pushRelayBenchmarks),
  ("pushload", BenchmarkRegistry.pushLoadBenchmarks),
  ("pipeline", BenchmarkRegistry.pipelineBenchmarks),
  ("social", BenchmarkRegistry.socialBenchmarks),
  ("gateway", BenchmarkRegistry.gatewayBenchmarks),
  ("service", BenchmarkRegistry.serviceBenchmarks),
  // Under Scripts/with-postgres only (skipped with a note otherwise).
  ("postgres", BenchmarkRegistry.postgresBenchmarks),
]
let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
for module in modules where only == nil || only == module.key {
  let (rows, rowNotes) = try module.rows(quick)
  notes += rowNotes
  for row in rows {
    if !asJSON { FileHandle.standardError.write(Data("running: \(row.name)\n".utf8)) }
    summaries.append(try runner.run(row))
  }
}
if asJSON {
  print(BenchmarkRunner.json(summaries, notes: notes))
} else {
  print(BenchmarkRunner.table(summaries))
  print(
    "note: ratio = the median of the repetitions' ratios (their min–max in brackets), each measured figure over the baseline run "
      + "just before it (--json also gives ratio_of_medians and every paired ratio)")
  for note in notes { print("note: \(note)") }
}
