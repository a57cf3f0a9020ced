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
  /// The longest subscription id.
  static let maxSubscriptionIDLength = 64

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
    guard case .array(let elements)? = try? JSONReader(maxDepth: 8).read(bytes),
      let type = elements.first?.stringValue
    else { return await send(RelayMessages.notice("invalid: not a JSON array with a message type")) }
    if type == "REQ" {
      return await request(
        elements.count >= 2 ? elements[1] : nil, elements.dropFirst(2), identity: identity, send: send)
    }
    for reply in await answer(type, elements, size: bytes.count, challenge: challenge, identity: &identity) {
      guard await send(reply) else { return false }
    }
    return true
  }

  /// The replies to one client message other than `REQ`, of `type`, read as `elements`.
  private func answer(
    _ type: String, _ elements: [JSONValue], size: Int, challenge: String, identity: inout String?
  ) async -> [[UInt8]] {
    switch type {
    case "AUTH":
      guard elements.count == 2, case .object = elements[1] else {
        return [RelayMessages.notice("invalid: AUTH takes one event object")]
      }
      guard let id = elements[1].objectValue?["id"]?.stringValue.flatMap({ NostrID($0)?.hex }) else {
        return [RelayMessages.notice("invalid: AUTH event without an id")]
      }
      switch auth.check(elements[1], challenge: challenge, now: clock.now()) {
      case .success(let pubkey):
        identity = pubkey
        return [RelayMessages.ok(id, true, "")]
      case .failure(let refusal):
        return [RelayMessages.ok(id, false, refusal.message)]
      }
    case "EVENT":
      guard elements.count == 2, case .object = elements[1] else {
        return [RelayMessages.notice("invalid: EVENT takes one event object")]
      }
      return [await lease(elements[1], size: size, identity: identity)]
    case "CLOSE":
      return []
    default:
      return [RelayMessages.notice("invalid: unknown message type \(type)")]
    }
  }

  private func lease(_ value: JSONValue, size: Int, identity: String?) async -> [UInt8] {
    let readableID = value.objectValue?["id"]?.stringValue.flatMap { NostrID($0)?.hex }
    func refuse(_ message: String) -> [UInt8] {
      readableID.map { RelayMessages.ok($0, false, message) } ?? RelayMessages.notice(message)
    }
    guard size <= ServiceIngest.maxEventBytes else {
      return refuse("invalid: event over \(ServiceIngest.maxEventBytes) bytes")
    }
    let event: Event
    do {
      event = try Event(jsonValue: value)
    } catch {
      return refuse("invalid: malformed event: \(error.field ?? "event"): \(error.message)")
    }
    guard event.kind == ServiceIngest.leaseKind else { return refuse(blocked) }
    guard let identity else { return refuse("auth-required: not authenticated") }
    guard identity == event.pubkey else {
      return refuse("invalid: event pubkey does not match authenticated identity")
    }
    guard let verified = VerifiedEvent(event) else {
      if case .badSignature = event.verify() { return refuse("invalid: invalid schnorr signature") }
      return refuse("invalid: invalid event id: computed \(event.computedID()), got \(event.id)")
    }
    let now = clock.now()
    guard abs(event.createdAt - now) <= ServiceIngest.timestampWindow else {
      return refuse("invalid: event timestamp too far from server time")
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
    _ subscriptionValue: JSONValue?, _ raw: ArraySlice<JSONValue>, identity: String?,
    send: @Sendable ([UInt8]) async -> Bool
  ) async -> Bool {
    guard let subscription = subscriptionValue?.stringValue,
      (1...Self.maxSubscriptionIDLength).contains(subscription.count)
    else {
      return await send(RelayMessages.notice("invalid: REQ needs a subscription id of 1 to 64 characters"))
    }
    guard queriesPerAddress.take(address, now: clock.now()) else {
      return await send(
        RelayMessages.closed(
          subscription,
          "rate-limited: over \(limits.maxQueriesPerMinutePerIP) queries a minute from your address"))
    }
    guard (1...limits.maxFilters).contains(raw.count) else {
      return await send(
        RelayMessages.closed(subscription, "invalid: REQ takes 1 to \(limits.maxFilters) filters"))
    }
    var filters: [Filter] = []
    for (index, element) in raw.enumerated() {
      do {
        filters.append(try Filter(jsonValue: element))
      } catch {
        return await send(
          RelayMessages.closed(
            subscription, "invalid: filter [\(index)] \(error.field ?? ""): \(error.message)"))
      }
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
