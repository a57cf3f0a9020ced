import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import PushRelay

/// One client WebSocket on the service's listener: NIP-42 on open, kind 30350 leases in, the
/// author's own leases out, everything else refused with where to publish instead.
///
/// Bounded per peer: at most ``maxMessagesPerMinute`` messages (past it a `NOTICE` and close
/// 1008), ``maxFilters`` filters per REQ, an idle bound (``idleTimeout``) that WebSocket pings do
/// not extend (they never reach this layer), and each REQ's answer capped at ``maxAnswerEvents``
/// events (then `CLOSED` with the reason). Lease ingest and reads run off the socket threads.
struct ClientSession: Sendable {
  /// How long a connection may send no message before it is closed.
  static let idleTimeout: Duration = .seconds(300)
  /// The most messages one connection may send per minute.
  static let maxMessagesPerMinute = 120
  /// The most filters in one REQ.
  static let maxFilters = 10
  /// The most events one REQ is answered with.
  static let maxAnswerEvents = 500

  let relay: PushRelay
  let auth: NIP42Check
  let clock: UnixClock
  /// The `blocked:` text for events that are not leases.
  let blocked: String
  /// Called after a lease or tombstone was accepted.
  let leaseChanged: @Sendable () -> Void

  func serve(_ socket: HTTPServerWebSocket) async {
    let challenge = Hex.encode(SystemRandom.bytes(32))
    try? await socket.send(RelayMessages.challenge(challenge))
    var identity: String?
    var windowStart = ContinuousClock.now
    var count = 0
    while true {
      let received = await DeadlineRace.value(by: .now + Self.idleTimeout, cancelsOperation: true) {
        await socket.receive()
      }
      guard let message = received ?? nil else { break }
      if ContinuousClock.now - windowStart > .seconds(60) {
        windowStart = .now
        count = 0
      }
      count += 1
      if count > Self.maxMessagesPerMinute {
        try? await socket.send(
          RelayMessages.notice("rate-limited: over \(Self.maxMessagesPerMinute) messages a minute"))
        await socket.close(code: 1008)
        return
      }
      for reply in await answer(message, challenge: challenge, identity: &identity) {
        do {
          try await socket.send(reply)
        } catch {
          return
        }
      }
    }
    await socket.close(code: 1000)
  }

  /// The replies to one client message.
  func answer(_ bytes: [UInt8], challenge: String, identity: inout String?) async -> [[UInt8]] {
    switch ClientMessage.read(bytes) {
    case .failure(let refusal):
      return [RelayMessages.notice(refusal.message)]
    case .success(.auth(let value)):
      guard let id = ClientMessage.readableID(value) else {
        return [RelayMessages.notice("invalid: AUTH event without an id")]
      }
      switch auth.check(value, challenge: challenge, now: clock.now()) {
      case .success(let pubkey):
        identity = pubkey
        return [RelayMessages.ok(id, true, "")]
      case .failure(let refusal):
        return [RelayMessages.ok(id, false, refusal.message)]
      }
    case .success(.event(let value)):
      return [await lease(value, size: bytes.count, identity: identity)]
    case .success(.request(let subscription, let filters)):
      return await request(subscription, filters, identity: identity)
    case .success(.close):
      return []
    }
  }

  private func lease(_ value: JSONValue, size: Int, identity: String?) async -> [UInt8] {
    let readableID = ClientMessage.readableID(value)
    func refuse(_ message: String) -> [UInt8] {
      readableID.map { RelayMessages.ok($0, false, message) } ?? RelayMessages.notice(message)
    }
    let event: Event
    switch EventAdmission.parse(value, size: size, maxBytes: ServiceIngest.maxEventBytes) {
    case .success(let parsed): event = parsed
    case .failure(let refusal): return refuse(refusal.message)
    }
    guard event.kind == ServiceIngest.leaseKind else { return refuse(blocked) }
    guard let identity else { return refuse("auth-required: not authenticated") }
    guard identity == event.pubkey else {
      return refuse("invalid: event pubkey does not match authenticated identity")
    }
    let verified: VerifiedEvent
    switch EventAdmission.verify(event) {
    case .success(let checked): verified = checked
    case .failure(let refusal): return refuse(refusal.message)
    }
    let now = clock.now()
    guard abs(event.createdAt - now) <= ServiceIngest.timestampWindow else {
      return refuse(EventAdmission.untimely)
    }
    let relay = self.relay
    let answer = await BlockingWork.run { () -> IngestAnswer? in
      try? relay.ingestLease(verified, identity: identity)
    }
    guard let answer else { return RelayMessages.ok(event.id, false, "error: internal server error") }
    if answer.accepted && answer.message.isEmpty { leaseChanged() }
    return RelayMessages.ok(event.id, answer.accepted, answer.message)
  }

  private func request(_ subscription: String, _ raw: [JSONValue], identity: String?) async -> [[UInt8]] {
    let filters: [Filter]
    switch ClientMessage.filters(raw, maxFilters: Self.maxFilters) {
    case .success(let parsed): filters = parsed
    case .failure(let refusal): return [RelayMessages.closed(subscription, refusal.message)]
    }
    guard let identity else {
      return [RelayMessages.closed(subscription, "auth-required: not authenticated")]
    }
    guard filters.allSatisfy({ $0.kinds == [ServiceIngest.leaseKind] && $0.authors == [identity] }) else {
      return [
        RelayMessages.closed(
          subscription,
          "restricted: this push relay serves only your own leases (kinds [\(EventKind.pushLease)], authors [you])"
        )
      ]
    }
    let relay = self.relay
    let asked = filters
    let events = await BlockingWork.run { () -> [Event]? in
      try? relay.visibleLeaseEvents(matching: asked, identity: identity)
    }
    guard let events else { return [RelayMessages.closed(subscription, "error: internal server error")] }
    var replies = events.prefix(Self.maxAnswerEvents).map { RelayMessages.event(subscription, $0) }
    if events.count > Self.maxAnswerEvents {
      replies.append(
        RelayMessages.closed(subscription, "error: answer truncated at \(Self.maxAnswerEvents) events"))
    } else {
      replies.append(RelayMessages.endOfStoredEvents(subscription))
    }
    return replies
  }
}
