import NostrEvent
import NostrPushCore
import NostrWebSocket

/// `/query`'s question to the upstreams: one one-shot REQ per upstream relay, all at once, for the
/// filters the account asked, answered by a common deadline.
///
/// Each upstream is asked over `RelayConnection` — the package's one NIP-01 client, whose NIP-42
/// the service answers with its own key for upstreams configured with `auth` (as
/// ``UpstreamSubscriber`` does, through the same ``RelayConnection/authenticationEvent(challenge:relay:key:createdAt:)``).
/// Every event kept has been parsed strictly, verified (id, then BIP-340 signature), matched
/// against the filters sent and de-duplicated by that client; nothing an upstream says is
/// trusted unverified, and a forged event is dropped there.
///
/// Bounds: at most ``maxBytesPerUpstream`` of `EVENT` messages are read from one upstream (past it
/// the REQ is closed and what was read before is kept; relays send newest first) and at most the
/// filters' `limit`s summed (each at most ``maxLimit``) events are kept; at most
/// ``maxInFlight`` upstream REQs run at once across all `/query` requests — past that a request
/// is answered from the store alone rather than queued.
///
/// The deadline is enforced in one place, `DeadlineRace`: an upstream that is slow, silent, or
/// down (refused, unreachable, handshake never answered) gives nothing and never delays the
/// answer past `deadline`; its connection is cancelled and released. An upstream whose `EOSE`
/// has not arrived by the deadline gives nothing either (a partial answer is not a stored
/// answer). Cancelling the calling task ends every REQ at once. Connections are closed in the
/// background (bounded by `WebSocketTimeouts.closeTimeout`), so closing never delays the answer.
///
/// Decisions where the spec is silent: kind 30350 is never asked of an upstream (leases come only
/// from the service's own lease store, `Docs/VendoringPushRelay.md`), so a filter of nothing but 30350 is not
/// sent and 30350 is removed from the others' `kinds`; answers are not ingested (an answer is not
/// a live event: it neither wakes nor enters the store).
struct UpstreamQuery: Sendable {
  /// The most bytes of `EVENT` messages read from one upstream for one `/query`: twice the
  /// answer's cap, so that what the answer can hold is read even after visibility drops some.
  static let maxBytesPerUpstream = 2 * ServiceQuery.maxAnswerBytes
  /// The largest `limit` a filter sent upstream carries (and the default when the account gave
  /// none is ``defaultLimit``), as the store reads.
  static let maxLimit = 1000
  /// The `limit` of a filter that named none.
  static let defaultLimit = 100
  /// The most upstream REQs in flight at once, across all `/query` requests.
  static let maxInFlight = 64

  let upstreams: [PushServiceConfiguration.Upstream]
  let key: SecretKey
  let clock: UnixClock
  private let inFlight = Locked(0)

  init(upstreams: [PushServiceConfiguration.Upstream], key: SecretKey, clock: UnixClock) {
    self.upstreams = upstreams
    self.key = key
    self.clock = clock
  }

  /// The filters an upstream is asked: 30350 removed from `kinds` (a filter of nothing else is
  /// dropped), `limit` set to what the account asked within ``maxLimit``; nil when nothing is left
  /// to ask.
  static func upstreamFilters(_ filters: [Filter]) -> [Filter]? {
    var sent: [Filter] = []
    for filter in filters {
      var copy = filter
      if let kinds = filter.kinds {
        let kept = kinds.filter { $0 != ServiceIngest.leaseKind }
        guard !kept.isEmpty else { continue }
        copy.kinds = kept
      }
      copy.limit = min(max(filter.limit ?? Self.defaultLimit, 0), Self.maxLimit)
      guard copy.limit! > 0 else { continue }
      sent.append(copy)
    }
    return sent.isEmpty ? nil : sent
  }

  /// Every upstream's verified answer to `filters` that arrived by `deadline`, one list per
  /// upstream that answered in time (an upstream that did not gives none); empty when there are
  /// no upstreams, nothing to ask, or ``maxInFlight`` REQs are already running.
  func events(matching filters: [Filter], deadline: ContinuousClock.Instant) async -> [[Event]] {
    guard !upstreams.isEmpty, let sent = Self.upstreamFilters(filters) else { return [] }
    let taken = inFlight.withLock { count -> Bool in
      guard count + upstreams.count <= Self.maxInFlight else { return false }
      count += upstreams.count
      return true
    }
    guard taken else { return [] }
    defer { inFlight.withLock { $0 -= upstreams.count } }
    var limits = QueryLimits(
      maxEvents: max(1, sent.reduce(0) { $0 + ($1.limit ?? 0) }), maxBytes: Self.maxBytesPerUpstream)
    limits.keepsPrefix = true
    let fixedLimits = limits
    return await withTaskGroup(of: [Event]?.self) { group in
      for upstream in upstreams {
        group.addTask {
          let answer = await DeadlineRace.value(by: deadline, cancelsOperation: true) {
            await ask(upstream, sent, limits: fixedLimits, deadline: deadline)
          }
          return answer ?? nil
        }
      }
      var answers: [[Event]] = []
      for await answer in group {
        if let answer { answers.append(answer) }
      }
      return answers
    }
  }

  /// One upstream's answer, nil when it could not be had by `deadline`.
  private func ask(
    _ upstream: PushServiceConfiguration.Upstream, _ filters: [Filter], limits: QueryLimits,
    deadline: ContinuousClock.Instant
  ) async -> [Event]? {
    let clock = self.clock
    let connection: RelayConnection
    do {
      connection = try await RelayConnection.connect(
        to: upstream.url, key: upstream.auth ? key : nil, clock: { clock.now() }, deadline: deadline)
    } catch {
      return nil
    }
    defer { Task { await connection.close() } }
    do {
      return try await connection.query(filters, limits: limits, deadline: deadline)
    } catch {
      return nil
    }
  }
}
