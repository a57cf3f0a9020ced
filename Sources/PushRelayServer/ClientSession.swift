import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import PushRelay

/// One client WebSocket on the service's listener: NIP-42 on open, kind 30350 leases in, the
/// author's own leases out, everything else refused with where to publish instead.
///
/// Bounded per peer by ``PushServiceLimits``: at most `maxMessagesPerMinute` messages (past it a
/// `NOTICE` and close 1008); `REQ`s count against the client address's `maxQueriesPerMinutePerIP`
/// (shared with `POST /query`; past it `CLOSED` `rate-limited:`); at most `maxFilters` filters per
/// `REQ`, refused before any read; an idle bound (`idleTimeout`, then a `NOTICE` and close 1000)
/// that WebSocket pings do not extend, since the server's reader answers them and they never
/// reach this layer; and each `REQ`'s answer streamed within `maxAnswerEvents` events and
/// `maxAnswerBytes` bytes, each `EVENT` written as it is encoded and the answer ended with
/// `CLOSED` `error: answer truncated …` at the bound instead of built whole. What is read before
/// the first send is the author's own lease rows, which the lease store bounds at
/// `SQLiteLeaseStore.rowsPerLeaseQuota` × `max_leases_per_pubkey` (32 with the usual 8).
///
/// Threading: the socket's own reader thread only decodes frames and hands messages over; this
/// session runs as a Swift task, and every store read or write (lease ingest, the lease read)
/// runs through `BlockingWork` on a thread outside both the socket threads and the cooperative
/// pool, so a slow disk stalls only the session that waits for it.
struct ClientSession: Sendable {
  let relay: PushRelay
  let auth: NIP42Check
  let clock: UnixClock
  /// The `blocked:` text for events that are not leases.
  let blocked: String
  /// Called after a lease or tombstone was accepted.
  let leaseChanged: @Sendable () -> Void
  /// The bounds.
  let limits: PushServiceLimits
  /// The queries per client address this minute, shared by every session and `POST /query`.
  let queriesPerAddress: RateWindow
  /// The client's address (the key of `queriesPerAddress`).
  let address: String

  func serve(_ socket: HTTPServerWebSocket) async {
    let challenge = Hex.encode(SystemRandom.bytes(32))
    try? await socket.send(RelayMessages.challenge(challenge))
    var identity: String?
    var windowStart = ContinuousClock.now
    var count = 0
    while true {
      let received = await DeadlineRace.value(by: .now + limits.idleTimeout, cancelsOperation: true) {
        await socket.receive()
      }
      guard let received else {
        try? await socket.send(
          RelayMessages.notice("idle: no message for \(limits.idleTimeout.wholeMilliseconds / 1000) s"))
        break
      }
      guard let message = received else { break }
      if ContinuousClock.now - windowStart > .seconds(60) {
        windowStart = .now
        count = 0
      }
      count += 1
      if count > limits.maxMessagesPerMinute {
        try? await socket.send(
          RelayMessages.notice("rate-limited: over \(limits.maxMessagesPerMinute) messages a minute"))
        await socket.close(code: 1008)
        return
      }
      let send: @Sendable ([UInt8]) async -> Bool = { reply in
        do {
          try await socket.send(reply)
          return true
        } catch {
          return false
        }
      }
      guard await handle(message, challenge: challenge, identity: &identity, send: send) else { return }
    }
    await socket.close(code: 1000)
  }

  /// Answers one client message through `send` (false: the connection failed); false when the
  /// connection is to end.
  func handle(
    _ bytes: [UInt8], challenge: String, identity: inout String?, send: @Sendable ([UInt8]) async -> Bool
  ) async -> Bool {
    switch ClientMessage.read(bytes) {
    case .failure(let refusal):
      return await send(RelayMessages.notice(refusal.message))
    case .success(.request(let subscription, let filters)):
      return await request(subscription, filters, identity: identity, send: send)
    case .success(.auth(let value)):
      guard let id = ClientMessage.readableID(value) else {
        return await send(RelayMessages.notice("invalid: AUTH event without an id"))
      }
      switch auth.check(value, challenge: challenge, now: clock.now()) {
      case .success(let pubkey):
        identity = pubkey
        return await send(RelayMessages.ok(id, true, ""))
      case .failure(let refusal):
        return await send(RelayMessages.ok(id, false, refusal.message))
      }
    case .success(.event(let value)):
      return await send(await lease(value, size: bytes.count, identity: identity))
    case .success(.close):
      return true
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

  /// A `REQ`: refused whole (`CLOSED`) when over a bound or not the author's own leases, else
  /// the author's leases streamed within the answer bounds, then `EOSE` (or `CLOSED` at a bound).
  private func request(
    _ subscription: String, _ raw: [JSONValue], identity: String?, send: @Sendable ([UInt8]) async -> Bool
  ) async -> Bool {
    guard queriesPerAddress.take(address, now: clock.now()) else {
      return await send(
        RelayMessages.closed(
          subscription,
          "rate-limited: over \(limits.maxQueriesPerMinutePerIP) queries a minute from your address"))
    }
    let filters: [Filter]
    switch ClientMessage.filters(raw, maxFilters: limits.maxFilters) {
    case .success(let parsed): filters = parsed
    case .failure(let refusal): return await send(RelayMessages.closed(subscription, refusal.message))
    }
    guard let identity else {
      return await send(RelayMessages.closed(subscription, "auth-required: not authenticated"))
    }
    guard filters.allSatisfy({ $0.kinds == [ServiceIngest.leaseKind] && $0.authors == [identity] }) else {
      return await send(
        RelayMessages.closed(
          subscription,
          "restricted: this push relay serves only your own leases (kinds [\(EventKind.pushLease)], authors [you])"
        ))
    }
    let relay = self.relay
    let asked = filters
    let events = await BlockingWork.run { () -> [Event]? in
      try? relay.visibleLeaseEvents(matching: asked, identity: identity)
    }
    guard let events else {
      return await send(RelayMessages.closed(subscription, "error: internal server error"))
    }
    var sentBytes = 0
    for (index, event) in events.enumerated() {
      guard index < limits.maxAnswerEvents else {
        return await send(
          RelayMessages.closed(subscription, "error: answer truncated at \(limits.maxAnswerEvents) events"))
      }
      let message = RelayMessages.event(subscription, event)
      guard sentBytes + message.count <= limits.maxAnswerBytes else {
        return await send(
          RelayMessages.closed(
            subscription,
            "error: answer truncated at \(limits.maxAnswerBytes) bytes after \(index) events"))
      }
      guard await send(message) else { return false }
      sentBytes += message.count
    }
    return await send(RelayMessages.endOfStoredEvents(subscription))
  }
}
