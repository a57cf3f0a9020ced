import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore

/// `POST /query` on the client listener: NIP-98 by an account that holds a live lease here,
/// the visibility rules, a per-account rate limit, a capped answer.
///
/// Order, first failure answers: the client address's query rate, shared with WebSocket `REQ`s
/// (``PushServiceLimits/maxQueriesPerMinutePerIP``; 429, checked first since it costs no
/// signature check); NIP-98 (401; 503 when the replay set is full of live ids); a
/// live lease of the signer (401 `auth-required: no live push lease here`); the rate limit (429); a
/// JSON array of 1…``maxFilters`` filters (400); visibility — author-only kind 30350 only as
/// `authors=[self]`, and gift wraps (1059) only to the pubkey their `p` names (403 when a filter
/// asks for nothing but others' wraps). The answer is the stored events newest first, each
/// filter's `limit` honoured, at most ``maxAnswerBytes``: whole events up to the cap.
struct ServiceQuery: Sendable {
  /// The largest request body.
  static let maxBodyBytes = 64 * 1024
  /// The most filters.
  static let maxFilters = 20
  /// The largest answer body: 1 MiB.
  static let maxAnswerBytes = 1024 * 1024
  /// Queries one account may make per minute.
  static let perAccountPerMinute = 30

  let events: ServiceEventStore
  let leases: LiveLeaseCache
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
      if filter.kinds?.contains(ServiceIngest.leaseKind) == true, filter.authors != [identity] {
        return Self.error(403, "restricted: author-only kinds require authors=[self]")
      }
    }
    let events = self.events
    let asked = filters
    let found = await BlockingWork.run { () -> [Event]? in
      try? events.events(matching: asked) { Self.isVisible($0, to: identity) }
    }
    guard let found else { return Self.error(500, "error: internal server error") }
    var body: [UInt8] = [UInt8(ascii: "[")]
    for event in found {
      let json = event.jsonBytes()
      guard body.count + json.count + 2 <= Self.maxAnswerBytes else { break }
      if body.count > 1 { body.append(UInt8(ascii: ",")) }
      body += json
    }
    body.append(UInt8(ascii: "]"))
    return .json(status: 200, body)
  }

  /// Whether `event` may be shown to `identity`: gift wraps only to the pubkey their `p` names,
  /// leases only to their author.
  static func isVisible(_ event: Event, to identity: String) -> Bool {
    if event.kind == EventKind.giftWrap { return event.tagValues("p").contains(identity) }
    if event.kind == ServiceIngest.leaseKind { return event.pubkey == identity }
    return true
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
