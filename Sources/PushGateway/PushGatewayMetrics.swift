import NostrPushCore

/// The gateway's counters and latency histograms, rendered as Prometheus text for the admin
/// listener's `GET /metrics`.
///
/// Every label comes from a closed set (route paths, answer codes, APNs outcome names): never a
/// token, key, handle or id.
public final class PushGatewayMetrics: Sendable {
  /// The histogram buckets, in seconds.
  public static let buckets: [Double] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
  ]

  private struct Histogram {
    var counts = [Int](repeating: 0, count: PushGatewayMetrics.buckets.count)
    var sum = 0.0
    var total = 0

    mutating func observe(_ seconds: Double) {
      for (index, bound) in PushGatewayMetrics.buckets.enumerated() where seconds <= bound {
        counts[index] += 1
      }
      sum += seconds
      total += 1
    }
  }

  private struct State {
    var deliveries: [String: Int] = [:]
    var apnsOutcomes: [String: Int] = [:]
    var registrations: [String: Int] = [:]
    var admission = Histogram()
    var apns = Histogram()
  }

  private let state = Locked(State())

  /// Empty metrics.
  public init() {}

  /// Counts one delivery answered with `outcome` (an answer code: `accepted`, `rate_limited`, …).
  func delivery(_ outcome: String) {
    state.withLock { $0.deliveries[outcome, default: 0] += 1 }
  }

  /// Counts one APNs attempt that ended in `outcome` (`accepted`, `invalid_endpoint`,
  /// `configuration_fault`, `retry`, `invalid_request`).
  func apnsOutcome(_ outcome: String) {
    state.withLock { $0.apnsOutcomes[outcome, default: 0] += 1 }
  }

  /// Counts one registration request on `route` answered with `outcome`.
  func registration(route: String, outcome: String) {
    state.withLock { $0.registrations[route + "\u{0}" + outcome, default: 0] += 1 }
  }

  /// Records how long one admission (the store transaction) took.
  func observeAdmission(_ duration: Duration) {
    state.withLock { $0.admission.observe(duration.seconds) }
  }

  /// Records how long one APNs delivery took.
  func observeAPNs(_ duration: Duration) {
    state.withLock { $0.apns.observe(duration.seconds) }
  }

  /// How many deliveries were answered with `outcome` so far.
  public func deliveries(_ outcome: String) -> Int {
    state.withLock { $0.deliveries[outcome] ?? 0 }
  }

  /// The Prometheus text exposition (version 0.0.4).
  public func render() -> String {
    let state = state.current
    var text = ""
    func counter(_ name: String, _ help: String, _ values: [(labels: String, value: Int)]) {
      text += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
      for entry in values.sorted(by: { $0.labels < $1.labels }) {
        text += "\(name){\(entry.labels)} \(entry.value)\n"
      }
    }
    func histogram(_ name: String, _ help: String, _ histogram: Histogram) {
      text += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
      for (index, bound) in Self.buckets.enumerated() {
        text += "\(name)_bucket{le=\"\(bound)\"} \(histogram.counts[index])\n"
      }
      text +=
        "\(name)_bucket{le=\"+Inf\"} \(histogram.total)\n\(name)_sum \(histogram.sum)\n\(name)_count \(histogram.total)\n"
    }
    counter(
      "nostr_push_gateway_deliveries_total", "Delivery requests by answer.",
      state.deliveries.map { ("outcome=\"\($0.key)\"", $0.value) })
    counter(
      "nostr_push_gateway_apns_attempts_total", "APNs requests by outcome.",
      state.apnsOutcomes.map { ("outcome=\"\($0.key)\"", $0.value) })
    counter(
      "nostr_push_gateway_registrations_total", "Registration requests by route and answer.",
      state.registrations.map { key, value in
        let parts = key.split(separator: "\u{0}", maxSplits: 1).map(String.init)
        return ("route=\"\(parts[0])\",outcome=\"\(parts.count > 1 ? parts[1] : "")\"", value)
      })
    histogram(
      "nostr_push_gateway_admission_seconds", "Time of one delivery admission (store).", state.admission)
    histogram("nostr_push_gateway_apns_seconds", "Time of one APNs delivery.", state.apns)
    return text
  }
}

extension Duration {
  /// The duration in seconds, as a `Double`.
  fileprivate var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
