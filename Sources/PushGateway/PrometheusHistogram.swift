/// One Prometheus histogram of durations in seconds: cumulative counts per upper bound, the sum
/// and the count, kept by ``PushGatewayMetrics`` under its lock.
struct PrometheusHistogram: Sendable {
  /// The upper bounds of the buckets, in seconds, ascending (`+Inf` is implied).
  let bounds: [Double]
  /// Observations per bucket (not cumulative; the last one is `+Inf`).
  private(set) var counts: [UInt64]
  /// The sum of the observations, in seconds.
  private(set) var sum: Double = 0
  /// The number of observations.
  private(set) var count: UInt64 = 0

  /// An empty histogram with `bounds`.
  init(bounds: [Double]) {
    self.bounds = bounds
    counts = [UInt64](repeating: 0, count: bounds.count + 1)
  }

  /// Records one observation of `seconds` (a negative one counts as 0).
  mutating func observe(_ seconds: Double) {
    let value = max(0, seconds)
    let index = bounds.firstIndex { value <= $0 } ?? bounds.count
    counts[index] += 1
    sum += value
    count += 1
  }

  /// The sample lines of metric `name`: `_bucket{le=…}` cumulative, `_sum`, `_count`.
  func lines(name: String) -> [String] {
    var lines: [String] = []
    var cumulative: UInt64 = 0
    for (index, bound) in bounds.enumerated() {
      cumulative += counts[index]
      lines.append("\(name)_bucket{le=\"\(bound)\"} \(cumulative)")
    }
    lines.append("\(name)_bucket{le=\"+Inf\"} \(count)")
    lines.append("\(name)_sum \(sum)")
    lines.append("\(name)_count \(count)")
    return lines
  }
}
