import NostrPushCore

/// Where an event entered the service: a closed label set for `/metrics`.
public enum EventSource: String, Sendable, CaseIterable {
  /// An upstream relay subscription.
  case upstream
  /// The WebSocket feed on the admin listener.
  case webSocketFeed = "websocket_feed"
  /// `POST /events` on the admin listener.
  case httpFeed = "http_feed"
}

/// What an ingested event came to: a closed label set for `/metrics`.
public enum IngestResult: String, Sendable, CaseIterable {
  /// Verified, stored (or not needed) and handed to `PushRelay.didStore`.
  case accepted
  /// Seen before (dropped by id).
  case duplicate
  /// Failed verification, the time window or a bound: dropped and counted.
  case rejected
  /// A storage failure: the source should send it again.
  case failed
}

/// The service's counters, rendered in the Prometheus text format at the admin listener's
/// `/metrics`; every label set is closed (sources, results, upstream indices named in the
/// configuration).
public final class ServiceMetrics: Sendable {
  private struct Counts {
    var events: [String: Int] = [:]
    var upstreamConnected: [String: Bool] = [:]
    var upstreamReconnects: [String: Int] = [:]
    var upstreamSubscriptions: [String: Int] = [:]
    var upstreamInvalid: [String: Int] = [:]
    var ingestLagMilliseconds: Int64 = 0
    var queries = 0
    var queryMillisecondsTotal: Int64 = 0
  }

  private let counts = Locked(Counts())

  /// An empty set of counters.
  public init() {}

  /// Counts one event from `source` that came to `result`.
  public func count(_ source: EventSource, _ result: IngestResult) {
    counts.withLock { $0.events["\(source.rawValue)|\(result.rawValue)", default: 0] += 1 }
  }

  /// How many events from `source` came to `result`.
  public func events(_ source: EventSource, _ result: IngestResult) -> Int {
    counts.withLock { $0.events["\(source.rawValue)|\(result.rawValue)"] ?? 0 }
  }

  /// Records the latest ingest lag: receipt minus `created_at`, in milliseconds.
  func recordLag(milliseconds: Int64) {
    counts.withLock { $0.ingestLagMilliseconds = milliseconds }
  }

  /// Records an upstream's state.
  func upstream(_ url: String, connected: Bool) {
    counts.withLock { counts in
      if connected, counts.upstreamConnected[url] == false || counts.upstreamConnected[url] == nil,
        counts.upstreamReconnects[url] != nil
      {
        counts.upstreamReconnects[url, default: 0] += 1
      }
      if counts.upstreamReconnects[url] == nil { counts.upstreamReconnects[url] = 0 }
      counts.upstreamConnected[url] = connected
    }
  }

  /// Records how many REQs are open on an upstream.
  func upstream(_ url: String, subscriptions: Int) {
    counts.withLock { $0.upstreamSubscriptions[url] = subscriptions }
  }

  /// Counts a message from an upstream that was not a valid NIP-01 message or event.
  func upstreamInvalid(_ url: String) {
    counts.withLock { $0.upstreamInvalid[url, default: 0] += 1 }
  }

  /// Whether the upstream at `url` is connected now.
  public func isConnected(_ url: String) -> Bool {
    counts.withLock { $0.upstreamConnected[url] ?? false }
  }

  /// How many REQs are open on the upstream at `url`.
  public func openSubscriptions(_ url: String) -> Int {
    counts.withLock { $0.upstreamSubscriptions[url] ?? 0 }
  }

  /// Records one `/query` answered in `milliseconds`.
  func recordQuery(milliseconds: Int64) {
    counts.withLock {
      $0.queries += 1
      $0.queryMillisecondsTotal += milliseconds
    }
  }

  /// The Prometheus text exposition; `upstreams` gives each upstream's label (its index and URL
  /// from the configuration) and `wakes` the outbox counts by state.
  func render(upstreams: [String], wakes: [String: Int]) -> String {
    let counts = self.counts.current
    var lines: [String] = []
    lines.append("# TYPE nostr_push_events_total counter")
    for source in EventSource.allCases {
      for result in IngestResult.allCases {
        let value = counts.events["\(source.rawValue)|\(result.rawValue)"] ?? 0
        lines.append(
          "nostr_push_events_total{source=\"\(source.rawValue)\",result=\"\(result.rawValue)\"} \(value)")
      }
    }
    lines.append("# TYPE nostr_push_ingest_lag_milliseconds gauge")
    lines.append("nostr_push_ingest_lag_milliseconds \(counts.ingestLagMilliseconds)")
    lines.append("# TYPE nostr_push_upstream_connected gauge")
    for (index, url) in upstreams.enumerated() {
      let label = "upstream=\"\(index)\""
      lines.append("nostr_push_upstream_connected{\(label)} \(counts.upstreamConnected[url] == true ? 1 : 0)")
      lines.append("nostr_push_upstream_reconnects_total{\(label)} \(counts.upstreamReconnects[url] ?? 0)")
      lines.append("nostr_push_upstream_subscriptions{\(label)} \(counts.upstreamSubscriptions[url] ?? 0)")
      lines.append("nostr_push_upstream_invalid_total{\(label)} \(counts.upstreamInvalid[url] ?? 0)")
    }
    lines.append("# TYPE nostr_push_wakes gauge")
    for state in ["pending", "sending", "delivered", "failed"] {
      lines.append("nostr_push_wakes{state=\"\(state)\"} \(wakes[state] ?? 0)")
    }
    lines.append("# TYPE nostr_push_query_seconds summary")
    lines.append("nostr_push_query_seconds_count \(counts.queries)")
    lines.append("nostr_push_query_seconds_sum \(Double(counts.queryMillisecondsTotal) / 1000)")
    return lines.joined(separator: "\n") + "\n"
  }
}
