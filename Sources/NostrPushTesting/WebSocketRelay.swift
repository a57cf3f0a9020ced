import NostrEvent
import NostrJSON
import NostrWebSocket

/// What one WebSocket client has established: its NIP-42 challenge and identity, and its open
/// subscriptions.
struct WebSocketSessionState {
  /// The challenge sent on open (64 hex of 32 fresh bytes).
  var challenge = Hex.encode(SystemRandom.bytes(32))
  /// The pubkey of the accepted `AUTH`, nil before.
  var identity: String?
  /// Open subscriptions by id, with their filters.
  var subscriptions: [String: [Filter]] = [:]
}

/// How storing an event went.
enum StoreResult {
  /// Stored (or, for an ephemeral kind, only sent on).
  case stored
  /// The id was already stored.
  case duplicate
  /// A replaceable event not newer than the stored one.
  case stale
}

/// The fixture's NIP-01 answers to one WebSocket message, and the NIP-01/NIP-42 rules both
/// bridges (`EVENT`, `POST /events`) and both readers (`REQ`, `/query`) share.
///
/// Built per message from a snapshot of the store, like `RelayRouter`; `save` stores into the
/// live one.
struct WebSocketRelay {
  /// The longest subscription id accepted.
  static let maxSubscriptionIDLength = 64
  /// The most subscriptions one connection keeps open.
  static let maxOpenSubscriptions = 20
  /// The most filters in one `REQ`.
  static let maxFilters = 100
  /// The largest `EVENT` message or `POST /events` body (256 KiB).
  static let maxEventBytes = 256 * 1024
  /// How far an event's `created_at` may be from the fixture's clock.
  static let timestampWindow: Int64 = 900
  /// How much further back a gift wrap's `created_at` may be: NIP-59 backdates it up to two
  /// days on purpose.
  static let giftWrapBackdate: Int64 = 172_800
  /// The gift wrap kind (NIP-59): served only to the authenticated pubkey its `p` tag names.
  static let giftWrapKind = EventKind.giftWrap
  /// How far an `AUTH` event's `created_at` may be from the fixture's clock.
  static let authWindow: Int64 = 600
  /// The push lease kind, always author-only, stored only through push ingest.
  static let leaseKind = EventKind.pushLease
  /// The refusal of a filter for others' author-only kinds.
  static let authorOnlyRefusal = "restricted: author-only kinds require authors=[self]"
  /// The refusal when author-only kinds are asked for before authenticating.
  static let notAuthenticated = "auth-required: not authenticated"

  /// The WebSocket URL an `AUTH` event's `relay` tag must name (`ws://<host>:<port>`).
  let webSocketURL: String
  /// Kinds only their author may read or write.
  let authorOnlyKinds: Set<Int>
  /// The fixture's clock.
  let now: Int64
  /// The store as it was when the message arrived.
  let store: EventStore
  /// Stores into the live store.
  let save: (RelayFixtureData.Entry) -> StoreResult
  /// The push half in push mode: lease ingest, matching of stored events, lease visibility.
  var push: FixturePush? = nil

  /// What answering one message produced.
  struct Outcome {
    /// Messages for this client, in order.
    var replies: [[UInt8]] = []
    /// An event newly stored or ephemeral, for every open subscription that matches it.
    var broadcast: RelayFixtureData.Entry?
    /// For a REQ or EVENT: the message type, the kinds `"path":"ws"` faults match on, the filters.
    var request: (type: String, kinds: Set<Int>, filters: [Filter])?
    /// The fault that shapes the replies, with its delay.
    var fault: RelayFault.Action?
    /// How long the replies are held.
    var delay: Duration = .zero
  }

  /// Answers one client message.
  func handle(_ bytes: [UInt8], session: inout WebSocketSessionState) -> Outcome {
    var outcome = Outcome()
    guard case .array(let elements)? = try? JSONReader().read(bytes), let type = elements.first?.stringValue
    else {
      outcome.replies.append(Self.notice("invalid: not a JSON array with a message type"))
      return outcome
    }
    switch type {
    case "REQ": request(elements, session: &session, into: &outcome)
    case "CLOSE":
      guard elements.count == 2, let subscription = elements[1].stringValue else {
        outcome.replies.append(Self.notice("invalid: CLOSE takes one subscription id"))
        return outcome
      }
      session.subscriptions[subscription] = nil
    case "EVENT":
      guard elements.count == 2, case .object = elements[1] else {
        outcome.replies.append(Self.notice("invalid: EVENT takes one event object"))
        return outcome
      }
      let kind = elements[1].objectValue?["kind"]?.integerValue.flatMap { Int(exactly: $0) }
      outcome.request = ("EVENT", kind.map { [$0] } ?? [], [])
      let answer = accept(elements[1], size: bytes.count, identity: session.identity)
      guard let id = answer.id else {
        outcome.replies.append(Self.notice(answer.message))
        return outcome
      }
      outcome.replies.append(Self.ok(id, answer.accepted, answer.message))
      outcome.broadcast = answer.broadcast
    case "AUTH":
      guard elements.count == 2, case .object = elements[1] else {
        outcome.replies.append(Self.notice("invalid: AUTH takes one event object"))
        return outcome
      }
      let id = elements[1].objectValue?["id"]?.stringValue.flatMap {
        NostrID($0)?.hex
      }
      let problem = authProblem(elements[1], challenge: session.challenge)
      guard let id else {
        outcome.replies.append(Self.notice(problem ?? "invalid: AUTH event without an id"))
        return outcome
      }
      if problem == nil, let pubkey = elements[1].objectValue?["pubkey"]?.stringValue {
        session.identity = pubkey
      }
      outcome.replies.append(Self.ok(id, problem == nil, problem ?? ""))
    default:
      outcome.replies.append(Self.notice("invalid: unknown message type \(type)"))
    }
    return outcome
  }

  private func request(
    _ elements: [JSONValue], session: inout WebSocketSessionState, into outcome: inout Outcome
  ) {
    guard elements.count >= 2, let subscription = elements[1].stringValue,
      (1...Self.maxSubscriptionIDLength).contains(subscription.count)
    else {
      outcome.replies.append(Self.notice("invalid: REQ needs a subscription id of 1 to 64 characters"))
      return
    }
    let raw = Array(elements.dropFirst(2))
    var kinds = Set<Int>()
    for element in raw {
      for kind in element.objectValue?["kinds"]?.arrayValue ?? [] {
        if let number = kind.integerValue, let value = Int(exactly: number) { kinds.insert(value) }
      }
    }
    outcome.request = ("REQ", kinds, [])
    guard (1...Self.maxFilters).contains(raw.count) else {
      outcome.replies.append(Self.closed(subscription, "invalid: REQ takes 1 to \(Self.maxFilters) filters"))
      return
    }
    var filters: [Filter] = []
    for (index, element) in raw.enumerated() {
      do {
        filters.append(try Filter(jsonValue: element))
      } catch {
        outcome.replies.append(
          Self.closed(subscription, "invalid: filter [\(index)] \(error.field ?? ""): \(error.message)"))
        return
      }
    }
    if let problem = visibilityProblem(filters, identity: session.identity) {
      session.subscriptions[subscription] = nil
      outcome.replies.append(Self.closed(subscription, problem))
      return
    }
    if session.subscriptions[subscription] == nil, session.subscriptions.count >= Self.maxOpenSubscriptions {
      outcome.replies.append(
        Self.closed(
          subscription, "restricted: too many open subscriptions (max \(Self.maxOpenSubscriptions))"))
      return
    }
    session.subscriptions[subscription] = filters
    outcome.request?.filters = filters
    let readable = readableStore(filters, identity: session.identity)
    for entry in readable.matches(filters, visible: { isVisible($0, to: session.identity) }) {
      outcome.replies.append(Self.eventMessage(subscription, entry.json))
    }
    outcome.replies.append(JSONWriter.bytes(.array([.string("EOSE"), .string(subscription)])))
  }

  // MARK: Shared rules

  /// The store a read by `identity` answers from: in push mode, with the author's stored kind
  /// 30350 events (from the lease store, never an event log) merged in.
  func readableStore(_ filters: [Filter], identity: String?) -> EventStore {
    Self.readableStore(store, filters, identity: identity, push: push)
  }

  /// `readableStore` over a given store (shared with `/query`).
  static func readableStore(_ store: EventStore, _ filters: [Filter], identity: String?, push: FixturePush?)
    -> EventStore
  {
    guard let push else { return store }
    let leases = push.visibleLeases(filters, identity: identity)
    guard !leases.isEmpty else { return store }
    var merged = store
    for entry in leases { merged.insert(entry) }
    return merged
  }

  /// Why `filters` may not be answered for `identity`: no identity while a filter names an
  /// author-only kind, or a filter whose kinds are all author-only without `authors` = [identity].
  func visibilityProblem(_ filters: [Filter], identity: String?) -> String? {
    Self.visibilityProblem(filters, identity: identity, authorOnlyKinds: authorOnlyKinds)
  }

  /// `visibilityProblem` for a given set of author-only kinds (shared with `/query`).
  static func visibilityProblem(_ filters: [Filter], identity: String?, authorOnlyKinds: Set<Int>) -> String?
  {
    // No identity yet and an author-only kind named: ask for AUTH rather than silently omit the
    // author's own events, so a client with a key authenticates and asks again.
    if identity == nil,
      filters.contains(where: { $0.kinds?.contains(where: authorOnlyKinds.contains) ?? false })
    {
      return Self.notAuthenticated
    }
    // Gift wraps are for their recipient alone: a filter that asks for nothing else needs an
    // identity; any other filter silently omits the wraps not addressed to it.
    if identity == nil,
      filters.contains(where: { filter in
        guard let kinds = filter.kinds, !kinds.isEmpty else { return false }
        return kinds.allSatisfy { $0 == giftWrapKind }
      })
    {
      return Self.notAuthenticated
    }
    for filter in filters {
      guard let kinds = filter.kinds, !kinds.isEmpty, kinds.allSatisfy(authorOnlyKinds.contains) else {
        continue
      }
      guard let identity else { return Self.notAuthenticated }
      guard filter.authors == [identity] else { return Self.authorOnlyRefusal }
    }
    return nil
  }

  /// Whether `event` may be shown to `identity`: author-only kinds only to their author, gift
  /// wraps only to the pubkey their `p` tag names.
  func isVisible(_ event: Event, to identity: String?) -> Bool {
    Self.isVisible(event, to: identity, authorOnlyKinds: authorOnlyKinds)
  }

  /// `isVisible` for a given set of author-only kinds (shared with `/query`).
  static func isVisible(_ event: Event, to identity: String?, authorOnlyKinds: Set<Int>) -> Bool {
    isVisible(event, to: identity, authorOnly: authorOnlyKinds.contains)
  }

  /// `isVisible` with author-only kinds given by a rule (shared with the live broadcast).
  static func isVisible(_ event: Event, to identity: String?, authorOnly: (Int) -> Bool) -> Bool {
    if event.kind == giftWrapKind {
      guard let identity else { return false }
      return event.tagValues("p").contains(identity)
    }
    return !authorOnly(event.kind) || event.pubkey == identity
  }

  /// The answer to a published event (both bridges): its id when readable, the OK text, and
  /// what to send to open subscriptions; the first failing rule of §5 wins.
  func accept(_ value: JSONValue, size: Int, identity: String?) -> (
    id: String?, accepted: Bool, message: String, broadcast: RelayFixtureData.Entry?
  ) {
    let readableID = value.objectValue?["id"]?.stringValue.flatMap {
      NostrID($0)?.hex
    }
    func refuse(_ message: String) -> (String?, Bool, String, RelayFixtureData.Entry?) {
      (readableID, false, message, nil)
    }
    guard size <= Self.maxEventBytes else { return refuse("invalid: event over \(Self.maxEventBytes) bytes") }
    let event: Event
    do {
      event = try Event(jsonValue: value)
    } catch {
      return refuse("invalid: malformed event: \(error.field ?? "event"): \(error.message)")
    }
    guard event.kind != RelayConnection.authKind else {
      return refuse("invalid: AUTH events go in an AUTH message")
    }
    if authorOnlyKinds.contains(event.kind) {
      guard let identity else { return refuse(Self.notAuthenticated) }
      guard identity == event.pubkey else {
        return refuse("invalid: event pubkey does not match authenticated identity")
      }
    }
    guard let verified = VerifiedEvent(event) else {
      if case .badSignature = event.verify() { return refuse("invalid: invalid schnorr signature") }
      return refuse("invalid: invalid event id: computed \(event.computedID()), got \(event.id)")
    }
    let earliest = now - Self.timestampWindow - (event.kind == Self.giftWrapKind ? Self.giftWrapBackdate : 0)
    guard event.createdAt >= earliest, event.createdAt <= now + Self.timestampWindow else {
      return refuse("invalid: event timestamp too far from server time")
    }
    let entry = RelayFixtureData.Entry(event: event, json: event.jsonBytes())
    if event.kind == Self.leaseKind {
      guard let push else { return refuse("invalid: push not supported") }
      let answer = push.ingestLease(verified, identity: identity)
      guard answer.accepted else { return refuse(answer.message) }
      return (event.id, true, answer.message, answer.message.isEmpty ? entry : nil)
    }
    if (20000..<30000).contains(event.kind) { return (event.id, true, "", entry) }
    switch save(entry) {
    case .stored:
      if let push, !push.stored(event) { return (event.id, false, FixturePush.internalError, entry) }
      return (event.id, true, "", entry)
    case .duplicate:
      // A client retrying after an `error:` answer: PushRelay completes what failed, once.
      if let push, !push.stored(event) { return (event.id, false, FixturePush.internalError, nil) }
      return (event.id, true, "duplicate: already have this event", nil)
    case .stale: return refuse("invalid: stale replacement")
    }
  }

  /// Why an `AUTH` event is refused (first failure), nil when it is accepted.
  func authProblem(_ value: JSONValue, challenge: String) -> String? {
    let event: Event
    do {
      event = try Event(jsonValue: value)
    } catch {
      return "invalid: malformed event: \(error.field ?? "event"): \(error.message)"
    }
    guard event.kind == RelayConnection.authKind else {
      return "invalid: AUTH event must be kind \(RelayConnection.authKind)"
    }
    switch event.verify() {
    case .valid: break
    case .idMismatch: return "invalid: invalid event id: computed \(event.computedID()), got \(event.id)"
    case .badSignature: return "invalid: invalid schnorr signature"
    }
    guard event.tagValues("challenge").first == challenge else { return "invalid: challenge does not match" }
    // The relay's own URL, or in push mode with `--origin` the tenant origin clients reach it by.
    guard let relay = event.tagValues("relay").first,
      NIP98URL.normalized(relay) == NIP98URL.normalized(webSocketURL)
        || push?.tenantOrigin.map({ NIP98URL.normalized(relay) == NIP98URL.normalized($0) }) == true
    else { return "invalid: relay tag does not match" }
    guard abs(event.createdAt - now) <= Self.authWindow else {
      return "invalid: AUTH event too old or too new"
    }
    return nil
  }

  // MARK: Messages

  static func notice(_ text: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("NOTICE"), .string(text)]))
  }

  static func closed(_ subscription: String, _ text: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("CLOSED"), .string(subscription), .string(text)]))
  }

  static func ok(_ id: String, _ accepted: Bool, _ text: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("OK"), .string(id), .bool(accepted), .string(text)]))
  }

  static func eventMessage(_ subscription: String, _ json: [UInt8]) -> [UInt8] {
    var output = Array("[\"EVENT\",".utf8)
    NostrStringEscaper.appendQuoted(subscription, to: &output)
    output.append(UInt8(ascii: ","))
    output.append(contentsOf: json)
    output.append(UInt8(ascii: "]"))
    return output
  }

  static func challengeMessage(_ challenge: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("AUTH"), .string(challenge)]))
  }
}
