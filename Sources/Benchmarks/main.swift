import Foundation
import NostrEvent

// nostr-push-bench [--quick] [--json] [--write-corpus N FILE]
// Prints every performance figure beside its baseline measured in the same run (performance.md).

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

if let flag = arguments.firstIndex(of: "--profile"), flag + 1 < arguments.count {
  // A single workload with nothing else around it, for `perf record` or `valgrind --tool=callgrind`.
  try Profiling.run(arguments[flag + 1], quick: quick)
  exit(0)
}

let runner = BenchmarkRunner(repetitions: BenchmarkRunner.minimumRepetitions)
var summaries: [BenchmarkSummary] = []
var notes: [String] = []
// Each module adds its rows here: `try BenchmarkRegistry.<module>Benchmarks(quick:)`.
for (rows, rowNotes) in [
  try BenchmarkRegistry.nostrEventBenchmarks(quick: quick),
  try BenchmarkRegistry.bech32Benchmarks(quick: quick),
  try BenchmarkRegistry.pushDescriptorBenchmarks(quick: quick),
  try BenchmarkRegistry.enrichmentCacheBenchmarks(quick: quick),
] {
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
  for note in notes { print("note: \(note)") }
}
