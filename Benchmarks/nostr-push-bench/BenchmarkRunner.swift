import Foundation
import NostrJSON

/// Runs benchmark rows and prints the report as a table or as JSON.
struct BenchmarkRunner {
  /// The fewest repetitions of each figure (the report gives their median, min and max).
  static let minimumRepetitions = 5

  var repetitions: Int

  /// Runs `benchmark`, alternating baseline and measured repetitions (the baseline first, so
  /// that each measured repetition pairs with the baseline run just before it).
  func run(_ benchmark: Benchmark) throws -> BenchmarkSummary {
    var measured: [Double] = []
    var baseline: [Double] = []
    let count = max(repetitions, benchmark.minimumRepetitions ?? Self.minimumRepetitions)
    for _ in 0..<count {
      if let run = benchmark.baseline { baseline.append(try run()) }
      measured.append(try benchmark.measured())
    }
    let paired = baseline.isEmpty ? [] : zip(measured, baseline).compactMap { $1 > 0 ? $0 / $1 : nil }
    var summary = BenchmarkSummary(
      benchmark: benchmark, repetitions: measured.count, median: Self.median(measured),
      minimum: measured.min() ?? 0, maximum: measured.max() ?? 0,
      baselineMedian: baseline.isEmpty ? nil : Self.median(baseline), pairedRatios: paired)
    summary.met = benchmark.passes(summary)
    return summary
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  /// The report as an aligned text table.
  static func table(_ summaries: [BenchmarkSummary]) -> String {
    let header = [
      "module", "figure", "unit", "median", "min", "max", "baseline", "baseline median", "ratio", "target",
      "met",
    ]
    var rows = [header]
    for summary in summaries {
      let benchmark = summary.benchmark
      rows.append([
        benchmark.module, benchmark.name, benchmark.unit, format(summary.median), format(summary.minimum),
        format(summary.maximum), benchmark.baselineName, summary.baselineMedian.map(format) ?? "n/a",
        summary.ratio.map { ratio in
          // The span of the paired ratios beside their median.
          String(
            format: "%.3f (%.3f–%.3f)", ratio, summary.pairedRatios.min() ?? ratio,
            summary.pairedRatios.max() ?? ratio)
        } ?? "n/a", benchmark.target,
        summary.met.map { $0 ? "yes" : "NO" } ?? "report",
      ])
    }
    var widths = [Int](repeating: 0, count: header.count)
    for row in rows {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    return rows.map { row in
      row.enumerated().map { index, cell in cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
      }
      .joined(separator: "  ")
    }.joined(separator: "\n")
  }

  /// The report as one JSON document.
  static func json(_ summaries: [BenchmarkSummary], notes: [String]) -> String {
    let rows: [JSONValue] = summaries.map { summary in
      let benchmark = summary.benchmark
      return .object(
        JSONObject([
          "module": .string(benchmark.module),
          "figure": .string(benchmark.name),
          "unit": .string(benchmark.unit),
          "repetitions": .integer(Int64(summary.repetitions)),
          "median": .float(summary.median),
          "min": .float(summary.minimum),
          "max": .float(summary.maximum),
          "baseline": .string(benchmark.baselineName),
          "baseline_median": summary.baselineMedian.map { .float($0) } ?? .null,
          "ratio": summary.ratio.map { .float($0) } ?? .null,
          "ratio_of_medians": summary.ratioOfMedians.map { .float($0) } ?? .null,
          "paired_ratios": .array(summary.pairedRatios.map { .float($0) }),
          "target": .string(benchmark.target),
          "met": summary.met.map { .bool($0) } ?? .null,
        ]))
    }
    return JSONWriter.string(
      .object(JSONObject(["rows": .array(rows), "notes": .array(notes.map { .string($0) })])))
  }

  private static func format(_ value: Double) -> String {
    if value >= 1000 { return String(format: "%.0f", value) }
    if value >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.3f", value)
  }
}

/// Monotonic wall-clock timing.
enum Stopwatch {
  /// Seconds taken by `body`.
  static func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = mark()
    try body()
    return seconds(since: start)
  }

  /// Now, for `seconds(since:)`: times a phase that awaits, which `seconds(_:)` cannot wrap.
  static func mark() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

  /// Seconds from `start` (a `mark()`) to now.
  static func seconds(since start: UInt64) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  }
}

/// Runs `body` to completion from synchronous code (the rows, a `deinit`, a `defer`): the one
/// bridge from the benchmarks' synchronous rows to the async fixtures and libraries.
func blockingRun<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let semaphore = DispatchSemaphore(value: 0)
  let box = ResultBox<T>()
  Task {
    do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
    semaphore.signal()
  }
  semaphore.wait()
  return try box.result!.get()
}

/// A result handed from a task to the waiting thread; the semaphore orders the write before the read.
final class ResultBox<T>: @unchecked Sendable {
  var result: Result<T, any Error>?
}
