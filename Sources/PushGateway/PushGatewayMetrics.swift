import NostrPushCore

/// The gateway's counters and latency histograms, served as Prometheus text on the admin
/// listener (`GET /metrics`).
///
/// Every label comes from a closed enumeration (``PushGatewayDeliveryOutcome``,
/// ``APNsStatusClass``, ``PushGatewayRegistrationRoute``, ``PushGatewayRegistrationOutcome``):
/// never a device token, pubkey, handle or id, so the text can leak none and its series count is
/// fixed. Every series is written from the start (at 0), so a rate over a fresh counter works.
///
/// ```
/// push_gateway_deliveries_total{outcome="accepted"} 12
/// push_gateway_apns_attempts_total{status_class="2xx"} 12
/// push_gateway_admission_seconds_bucket{le="0.001"} 9
/// push_gateway_registrations_total{route="installations",outcome="created"} 3
/// ```
public final class PushGatewayMetrics: Sendable {
  /// The admission histogram's upper bounds, seconds: one store transaction.
  public static let admissionBounds: [Double] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
  ]
  /// The APNs histogram's upper bounds, seconds: one HTTP/2 exchange with Apple.
  public static let apnsBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

  private struct State: Sendable {
    var deliveries: [PushGatewayDeliveryOutcome: UInt64] = [:]
    var apnsAttempts: [APNsStatusClass: UInt64] = [:]
    var registrations: [PushGatewayRegistrationRoute: [PushGatewayRegistrationOutcome: UInt64]] = [:]
    var admission = PrometheusHistogram(bounds: PushGatewayMetrics.admissionBounds)
    var apns = PrometheusHistogram(bounds: PushGatewayMetrics.apnsBounds)
  }

  private let state = Locked(State())

  /// Empty metrics.
  public init() {}

  /// Counts one delivery answered with `outcome`.
  public func recordDelivery(_ outcome: PushGatewayDeliveryOutcome) {
    state.withLock { $0.deliveries[outcome, default: 0] += 1 }
  }

  /// Counts one request to APNs answered with `status` (nil: no answer) after `duration`.
  public func recordAPNsAttempt(status: Int?, duration: Duration) {
    state.withLock {
      $0.apnsAttempts[APNsStatusClass(status: status), default: 0] += 1
      $0.apns.observe(duration.seconds)
    }
  }

  /// Records one admission (the store transaction deciding a delivery) that took `duration`.
  public func recordAdmission(duration: Duration) {
    state.withLock { $0.admission.observe(duration.seconds) }
  }

  /// Counts one registration request on `route` answered with `outcome`.
  public func recordRegistration(
    _ route: PushGatewayRegistrationRoute, _ outcome: PushGatewayRegistrationOutcome
  ) {
    state.withLock { $0.registrations[route, default: [:]][outcome, default: 0] += 1 }
  }

  /// How many deliveries were answered with `outcome` so far.
  public func deliveries(_ outcome: PushGatewayDeliveryOutcome) -> UInt64 {
    state.withLock { $0.deliveries[outcome] ?? 0 }
  }

  /// The Prometheus text exposition (format 0.0.4) of every series.
  public func prometheusText() -> String {
    let state = state.current
    var lines: [String] = []
    lines.append("# HELP push_gateway_deliveries_total Deliveries answered, by outcome.")
    lines.append("# TYPE push_gateway_deliveries_total counter")
    for outcome in PushGatewayDeliveryOutcome.allCases {
      lines.append(
        "push_gateway_deliveries_total{outcome=\"\(outcome.rawValue)\"} \(state.deliveries[outcome] ?? 0)")
    }
    lines.append("# HELP push_gateway_apns_attempts_total Requests sent to APNs, by status class.")
    lines.append("# TYPE push_gateway_apns_attempts_total counter")
    for statusClass in APNsStatusClass.allCases {
      lines.append(
        "push_gateway_apns_attempts_total{status_class=\"\(statusClass.rawValue)\"} \(state.apnsAttempts[statusClass] ?? 0)"
      )
    }
    lines.append("# HELP push_gateway_admission_seconds Time to admit or refuse a delivery in the store.")
    lines.append("# TYPE push_gateway_admission_seconds histogram")
    lines += state.admission.lines(name: "push_gateway_admission_seconds")
    lines.append("# HELP push_gateway_apns_seconds Time of one request to APNs.")
    lines.append("# TYPE push_gateway_apns_seconds histogram")
    lines += state.apns.lines(name: "push_gateway_apns_seconds")
    lines.append(
      "# HELP push_gateway_registrations_total Registration requests answered, by route and outcome.")
    lines.append("# TYPE push_gateway_registrations_total counter")
    for route in PushGatewayRegistrationRoute.allCases {
      for outcome in PushGatewayRegistrationOutcome.allCases {
        lines.append(
          "push_gateway_registrations_total{route=\"\(route.rawValue)\",outcome=\"\(outcome.rawValue)\"} \(state.registrations[route]?[outcome] ?? 0)"
        )
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

extension Duration {
  /// The duration in seconds, as a `Double`.
  fileprivate var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
