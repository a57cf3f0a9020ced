import NostrEvent
import NostrJSON
import NostrWebSocket
import PushRelayServer

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

/// The fixture's NIP-01 answers to one WebSocket message, and the fixture-only policy both
/// bridges (`EVENT`, `POST /events`) and both readers (`REQ`, `/query`) share.
///
/// The protocol rules are the production ones of `PushRelayServer`: frames are read by
/// `ClientMessage` (and a REQ's filters by `ClientMessage.filters`), `AUTH` is checked by
/// `NIP42Check`, an event's size, shape, id, signature and timestamp by `EventAdmission`, who may
/// read what by `EventVisibility`, and every reply is written by `RelayMessages` (and, in
/// `RelayRouter`, NIP-11's `Accept` by `InformationRequest` and the upgrade by the production
/// server's `WebSocketUpgrade`). What stays here
/// is the fixture's own: its limits (100 filters, 20 subscriptions), its `policy.json` author-only
/// kinds and the refusals they imply, the in-memory store and what the request log and `"ws"`
/// faults record.
///
/// Built per message from a snapshot of the store, like `RelayRouter`; `save` stores into the
/// live one.
struct WebSocketRelay {
  /// The most subscriptions one connection keeps open.
  static let maxOpenSubscriptions = 20
  /// The most filters in one `REQ`.
  static let maxFilters = 100
  /// The largest `EVENT` message or `POST /events` body (256 KiB).
  static let maxEventBytes = 256 * 1024
  /// How far an event's `created_at` may be from the fixture's clock.
  static let timestampWindow: Int64 = 900
  /// The gift wrap kind (NIP-59): served only to the authenticated pubkey its `p` tag names.
  static let giftWrapKind = EventKind.giftWrap
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

  /// Answers one client message: the frame read by the production `ClientMessage`, `AUTH`
  /// checked by the production `NIP42Check`, the replies written by `RelayMessages`.
  func handle(_ bytes: [UInt8], session: inout WebSocketSessionState) -> Outcome {
    var outcome = Outcome()
    switch ClientMessage.read(bytes, reader: JSONReader()) {
    case .failure(let refusal):
      outcome.replies.append(RelayMessages.notice(refusal.message))
    case .success(.request(let subscription, let raw)):
      request(subscription, raw, session: &session, into: &outcome)
    case .success(.close(let subscription)):
      session.subscriptions[subscription] = nil
    case .success(.event(let value)):
      let kind = value.objectValue?["kind"]?.integerValue.flatMap { Int(exactly: $0) }
      outcome.request = ("EVENT", kind.map { [$0] } ?? [], [])
      let answer = accept(value, size: bytes.count, identity: session.identity)
      guard let id = answer.id else {
        outcome.replies.append(RelayMessages.notice(answer.message))
        return outcome
      }
      outcome.replies.append(RelayMessages.ok(id, answer.accepted, answer.message))
      outcome.broadcast = answer.broadcast
    case .success(.auth(let value)):
      let checked = authCheck.check(value, challenge: session.challenge, now: now)
      guard let id = ClientMessage.readableID(value) else {
        var problem = "invalid: AUTH event without an id"
        if case .failure(let refusal) = checked { problem = refusal.message }
        outcome.replies.append(RelayMessages.notice(problem))
        return outcome
      }
      switch checked {
      case .success(let pubkey):
        session.identity = pubkey
        outcome.replies.append(RelayMessages.ok(id, true, ""))
      case .failure(let refusal):
        outcome.replies.append(RelayMessages.ok(id, false, refusal.message))
      }
    }
    return outcome
  }

  /// The NIP-42 check of this relay: its own WebSocket URL, or in push mode with `--origin` the
  /// tenant origin clients reach it by.
  var authCheck: NIP42Check {
    NIP42Check(relayURLs: [webSocketURL] + (push?.tenantOrigin.map { [$0] } ?? []))
  }

  private func request(
    _ subscription: String, _ raw: [JSONValue], session: inout WebSocketSessionState,
    into outcome: inout Outcome
  ) {
    var kinds = Set<Int>()
    for element in raw {
      for kind in element.objectValue?["kinds"]?.arrayValue ?? [] {
        if let number = kind.integerValue, let value = Int(exactly: number) { kinds.insert(value) }
      }
    }
    outcome.request = ("REQ", kinds, [])
    let filters: [Filter]
    switch ClientMessage.filters(raw, maxFilters: Self.maxFilters) {
    case .success(let parsed): filters = parsed
    case .failure(let refusal):
      outcome.replies.append(RelayMessages.closed(subscription, refusal.message))
      return
    }
    if let problem = visibilityProblem(filters, identity: session.identity) {
      session.subscriptions[subscription] = nil
      outcome.replies.append(RelayMessages.closed(subscription, problem))
      return
    }
    if session.subscriptions[subscription] == nil, session.subscriptions.count >= Self.maxOpenSubscriptions {
      outcome.replies.append(
        RelayMessages.closed(
          subscription, "restricted: too many open subscriptions (max \(Self.maxOpenSubscriptions))"))
      return
    }
    session.subscriptions[subscription] = filters
    outcome.request?.filters = filters
    let readable = readableStore(filters, identity: session.identity)
    for entry in readable.matches(filters, visible: { isVisible($0, to: session.identity) }) {
      outcome.replies.append(RelayMessages.event(subscription, json: entry.json))
    }
    outcome.replies.append(RelayMessages.endOfStoredEvents(subscription))
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

  /// `isVisible` with author-only kinds given by a rule (shared with the live broadcast): the
  /// production `EventVisibility`.
  static func isVisible(_ event: Event, to identity: String?, authorOnly: (Int) -> Bool) -> Bool {
    EventVisibility.isVisible(event, to: identity, authorOnly: authorOnly)
  }

  /// The answer to a published event (both bridges): its id when readable, the OK text, and
  /// what to send to open subscriptions; the first failing rule of §5 wins.
  func accept(_ value: JSONValue, size: Int, identity: String?) -> (
    id: String?, accepted: Bool, message: String, broadcast: RelayFixtureData.Entry?
  ) {
    let readableID = ClientMessage.readableID(value)
    func refuse(_ message: String) -> (String?, Bool, String, RelayFixtureData.Entry?) {
      (readableID, false, message, nil)
    }
    let event: Event
    switch EventAdmission.parse(value, size: size, maxBytes: Self.maxEventBytes) {
    case .success(let parsed): event = parsed
    case .failure(let refusal): return refuse(refusal.message)
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
    let verified: VerifiedEvent
    switch EventAdmission.verify(event) {
    case .success(let checked): verified = checked
    case .failure(let refusal): return refuse(refusal.message)
    }
    guard EventAdmission.isTimely(event, now: now, window: Self.timestampWindow) else {
      return refuse(EventAdmission.untimely)
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
}
