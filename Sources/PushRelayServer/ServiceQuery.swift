import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import PushDescriptor
import PushLease
import PushRelay

/// `POST /query` on the client listener: NIP-98 by an account that holds a live lease here,
/// the visibility rules, a per-account rate limit, and an answer that unites what the service
/// stored with what its upstreams answer, capped.
///
/// Order, first failure answers: the client address's query rate, shared with WebSocket `REQ`s
/// (``PushServiceLimits/maxQueriesPerMinutePerIP``; 429, checked first since it costs no
/// signature check); NIP-98 (401; 503 when the replay set is full of live ids); a
/// live lease of the signer (401 `auth-required: no live push lease here`); the rate limit (429); a
/// JSON array of 1…``maxFilters`` filters (400); a filter of nothing but kind 30350 without
/// `authors=[self]` (403 `restricted: author-only kinds require authors=[self]`).
///
/// The answer (200, a JSON array): the union of
/// - the events stored here that match (``ServiceEventStore``), and the account's own current
///   leases from the lease store (kind 30350 comes only from there, `Docs/VendoringPushRelay.md`);
/// - every upstream's answer to the same filters (``UpstreamQuery``: one one-shot REQ per
///   upstream, every event verified, by the deadline `query_timeout` after the request arrived);
///
/// de-duplicated by id, each event shown only when ``isVisible(_:to:roster:origin:)`` allows it,
/// each filter's `limit` (default 100, at most 1000) honoured over the union after visibility,
/// newest first (a tie to the lower id), and at most ``maxAnswerBytes``: whole events up to the
/// cap. An upstream that is slow, silent or down does not delay the answer past `query_timeout`:
/// the answer then holds what the store and the upstreams that answered in time gave.
struct ServiceQuery: Sendable {
  /// The largest request body.
  static let maxBodyBytes = 64 * 1024
  /// The most filters.
  static let maxFilters = 20
  /// The largest answer body: 1 MiB.
  static let maxAnswerBytes = 1024 * 1024
  /// Queries one account may make per minute.
  static let perAccountPerMinute = 30

  let events: any ServiceEventStore
  let leases: LiveLeaseCache
  let relay: PushRelay
  let roster: ServiceRoster
  let upstreams: UpstreamQuery
  /// How long the upstreams may take, from the request's arrival.
  let timeout: Duration
  let clock: UnixClock
  let metrics: ServiceMetrics
  /// The URLs a NIP-98 `u` may name (the public one and the listener's own).
  let urls: @Sendable () -> [String]
  let verifier = NIP98Verifier()
  let rate = RateWindow(limit: perAccountPerMinute)
  /// The queries per client address this minute, shared with every WebSocket session.
  let queriesPerAddress: RateWindow

  func answer(_ request: HTTPServerRequest) async -> HTTPServerResponse {
    let started = ContinuousClock.now
    let deadline = started + timeout
    defer {
      metrics.recordQuery(milliseconds: (ContinuousClock.now - started).wholeMilliseconds)
    }
    let now = clock.now()
    guard queriesPerAddress.take(request.remoteAddress, now: now) else {
      return Self.error(
        429, "rate-limited: over \(queriesPerAddress.limit) queries a minute from your address")
    }
    var identity: String?
    var lastError: NIP98Error?
    for url in urls() {
      do {
        identity = try verifier.verify(
          header: request.header("authorization"), url: url, method: "POST",
          body: request.body.isEmpty ? nil : request.body, now: now
        ).pubkey
        break
      } catch {
        lastError = error
        if error.code != .urlMismatch { break }
      }
    }
    guard let identity else {
      if lastError?.code == .unavailable { return Self.error(503, "unavailable: \(lastError!.message)") }
      return Self.error(401, "auth-required: NIP-98 \(lastError?.message ?? "missing")")
    }
    let leases = self.leases
    guard await BlockingWork.run({ leases.holdsLease(identity) }) else {
      return Self.error(401, "auth-required: no live push lease here")
    }
    guard rate.take(identity, now: now) else {
      return Self.error(429, "rate-limited: over \(Self.perAccountPerMinute) queries a minute")
    }
    guard let array = (try? JSONReader(maxDepth: 8).read(request.body))?.arrayValue,
      (1...Self.maxFilters).contains(array.count)
    else {
      return Self.error(400, "invalid: the body must be a JSON array of 1 to \(Self.maxFilters) filters")
    }
    var filters: [Filter] = []
    for (index, element) in array.enumerated() {
      do {
        filters.append(try Filter(jsonValue: element))
      } catch {
        return Self.error(400, "invalid: filter [\(index)] \(error.field ?? ""): \(error.message)")
      }
    }
    for filter in filters {
      if let kinds = filter.kinds, !kinds.isEmpty, kinds.allSatisfy({ $0 == ServiceIngest.leaseKind }),
        filter.authors != [identity]
      {
        return Self.error(403, "restricted: author-only kinds require authors=[self]")
      }
    }
    let asked = filters
    async let fromUpstreams = upstreams.events(matching: asked, deadline: deadline)
    let (events, relay, origin) = (self.events, self.relay, relay.descriptor.origin)
    let roster = RosterMemo(roster)
    let stored = await BlockingWork.run { () -> [Event]? in
      guard
        let found = try? events.events(
          matching: asked, visible: { Self.isVisible($0, to: identity, roster: roster, origin: origin) }),
        let own = try? relay.visibleLeaseEvents(matching: asked, identity: identity)
      else { return nil }
      return found + own
    }
    let answered = await fromUpstreams
    guard let stored else { return Self.error(500, "error: internal server error") }
    let upstreamEvents = answered.joined().filter { $0.kind != ServiceIngest.leaseKind }
    let chosen = await BlockingWork.run {
      Self.united(
        stored + upstreamEvents, filters: asked,
        visible: { Self.isVisible($0, to: identity, roster: roster, origin: origin) })
    }
    var body: [UInt8] = [UInt8(ascii: "[")]
    for event in chosen {
      let json = event.jsonBytes()
      guard body.count + json.count + 2 <= Self.maxAnswerBytes else { break }
      if body.count > 1 { body.append(UInt8(ascii: ",")) }
      body += json
    }
    body.append(UInt8(ascii: "]"))
    return .json(status: 200, body)
  }

  /// The answer out of `candidates` (verified events from every source): de-duplicated by id,
  /// for each filter the newest `limit` (default 100, at most 1000) that match it and are
  /// `visible`, united, newest first with a tie to the lower id.
  static func united(_ candidates: [Event], filters: [Filter], visible: (Event) -> Bool) -> [Event] {
    var unique: [String: Event] = [:]
    for event in candidates where unique[event.id] == nil { unique[event.id] = event }
    let ordered = unique.values.sorted(by: newestFirst)
    var chosen: [String: Event] = [:]
    for filter in filters {
      let limit = min(max(filter.limit ?? UpstreamQuery.defaultLimit, 0), UpstreamQuery.maxLimit)
      var taken = 0
      for event in ordered where taken < limit && filter.matches(event) && visible(event) {
        chosen[event.id] = event
        taken += 1
      }
    }
    return chosen.values.sorted(by: newestFirst)
  }

  /// Newest first, a tie to the lower id: `Event.supersedes`.
  private static func newestFirst(_ lhs: Event, _ rhs: Event) -> Bool {
    lhs.supersedes(rhs)
  }

  /// Whether `event` may be shown to `identity` (`Docs/VendoringPushRelay.md`, `Docs/Protocol/Query.md`):
  /// - a gift wrap (kind 1059) only to the pubkey its `p` names;
  /// - a lease (kind 30350) only to its author;
  /// - a NIP-29 message (kinds 9, 40002, 45001, 45003) only when the roster the upstream serves
  ///   for its one channel (``ServiceRoster``) lists both `identity` and the author — the one
  ///   rule the matcher applies (`LeaseSubscription.admits`); a channel without a roster has no
  ///   members, and a message without exactly one `h` tag is shown to no one;
  /// - anything else to any account.
  static func isVisible(_ event: Event, to identity: String, roster: any RosterSource, origin: String) -> Bool
  {
    guard EventVisibility.isVisible(event, to: identity, authorOnly: { $0 == ServiceIngest.leaseKind }) else {
      return false
    }
    switch LeaseSubscription.channelRule(event) {
    case .none: return true
    case .refused: return false
    case .channel(let channel):
      return LeaseSubscription.admits(
        event, owner: identity, members: roster.members(ofChannel: channel, origin: origin))
    }
  }

  /// One answer's rosters: each channel's members read once, however many of its messages the
  /// answer weighs (at most one entry per channel among the events read).
  final class RosterMemo: RosterSource {
    private let source: any RosterSource
    private let read = Locked([String: Set<String>?]())

    init(_ source: any RosterSource) {
      self.source = source
    }

    func members(ofChannel channel: String, origin: String) -> Set<String>? {
      if let known = read.withLock({ $0[channel] }) { return known }
      let members = source.members(ofChannel: channel, origin: origin)
      read.withLock { $0[channel] = members }
      return members
    }
  }

  static func error(_ status: Int, _ message: String) -> HTTPServerResponse {
    .json(status: status, JSONWriter.bytes(.object(JSONObject(["error": .string(message)]))))
  }
}

/// A per-key count of requests in the current minute, bounded in keys: past ``maxKeys`` the
/// window starts afresh (a flood of keys cannot grow it).
final class RateWindow: Sendable {
  /// The most keys counted at once.
  static let maxKeys = 100_000

  private struct Window {
    var minute: Int64 = 0
    var counts: [String: Int] = [:]
  }

  let limit: Int
  private let window = Locked(Window())

  init(limit: Int) {
    self.limit = limit
  }

  /// Counts one request by `key` at `now`; false when it is over the limit.
  func take(_ key: String, now: Int64) -> Bool {
    window.withLock { window in
      let minute = now / 60
      if window.minute != minute || window.counts.count >= Self.maxKeys {
        window = Window(minute: minute)
      }
      window.counts[key, default: 0] += 1
      return window.counts[key]! <= limit
    }
  }
}
