/// One row of the benchmark report: what is measured, against what, and the target.
///
/// `measured` and `baseline` each run one repetition and return its figure in `unit`; the
/// runner alternates them so that machine noise hits both alike, and reports medians and the
/// median of the per-repetition ratios.
struct Benchmark {
  /// The module the row belongs to (rows are grouped by it).
  var module: String
  /// What is measured.
  var name: String
  /// The unit of the figures (`events/s`, `MB/s`, `ns/call` …).
  var unit: String
  /// What the baseline is, for the report (`"direct secp256k1 verify"`, `"—"` …).
  var baselineName: String
  /// The target in words (`"≥ 0.92 × baseline"`).
  var target: String
  /// One repetition of the baseline, nil for rows with an absolute target.
  var baseline: (() throws -> Double)?
  /// One repetition of the measured figure.
  var measured: () throws -> Double
  /// Whether the summary meets the target; nil for report-only rows.
  var passes: (BenchmarkSummary) -> Bool?
  /// The fewest repetitions of this row, when it needs more than the runner's minimum (a ratio
  /// near its target on a machine whose speed drifts).
  var minimumRepetitions: Int? = nil
}

/// The figures of one row after all repetitions.
struct BenchmarkSummary {
  var benchmark: Benchmark
  var repetitions: Int
  var median: Double
  var minimum: Double
  var maximum: Double
  var baselineMedian: Double?
  /// Each repetition's measured figure over the baseline run just before it (empty without a
  /// baseline).
  var pairedRatios: [Double] = []
  /// The median of `pairedRatios`, when there is a baseline.
  ///
  /// Each ratio compares two runs seconds apart, so the drift of a shared machine's speed over
  /// the minutes a row takes cancels out of it; the median then sets aside a repetition that a
  /// burst of noise hit on one side only. With no drift it equals `ratioOfMedians`.
  var ratio: Double? {
    pairedRatios.isEmpty ? nil : BenchmarkRunner.median(pairedRatios)
  }
  /// `median / baselineMedian`, when there is a baseline: reported beside `ratio`.
  var ratioOfMedians: Double? {
    guard let baselineMedian, baselineMedian > 0 else { return nil }
    return median / baselineMedian
  }
  var met: Bool?
}

/// The benchmark rows every module contributes; each module's file adds a static function
/// here (`nostrEventBenchmarks(…)`) and `main.swift` lists it once.
enum BenchmarkRegistry {}
