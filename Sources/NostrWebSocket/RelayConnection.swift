import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore

/// A NIP-01 connection to one relay over WebSocket, with NIP-42 authentication: queries
/// (`REQ` … `EOSE`) and publishes (`EVENT` … `OK`) share it, several at a time.
///
/// One connection serves many operations: a resolver opens it, runs its queries as
/// subscriptions, then closes it. Every event a query returns has been parsed strictly,
/// verified, matched against the filters sent and de-duplicated. With a key, each new `AUTH`
/// challenge is answered at once, and a request refused `auth-required:` is retried once after
/// authenticating. Cancelling the task awaiting an operation ends that operation (`cancelled`;
/// a query sends `CLOSE`); the socket closes on `close()` or when the connection is released.
public actor RelayConnection {
  /// The most filters one query may send.
  package static let maxFilters = 100
  /// The longest `AUTH` challenge answered, in UTF-8 bytes.
  package static let maxChallengeBytes = 1024
  /// How many `NOTICE` texts are kept (the latest).
  package static let maxKeptNotices = 16
  /// The longest `NOTICE` text kept, in UTF-8 bytes (longer ones are cut).
  package static let maxNoticeBytes = 1024
  /// The NIP-42 authentication event kind.
  package static let authKind = EventKind.clientAuthentication

  /// A Unix-seconds clock for `created_at` of `AUTH` events.
  public typealias Clock = @Sendable () -> Int64

  /// The system clock.
  public static let systemClock: Clock = { Int64(Date().timeIntervalSince1970) }

  /// The relay URL, exactly as given (what the `relay` tag of `AUTH` carries).
  package nonisolated let url: WebSocketURL

  private let transport: any WebSocketTransport
  private let key: SecretKey?
  private let clock: Clock
  private let outbox: AsyncStream<[UInt8]>.Continuation
  private let tasks = Locked<[Task<Void, Never>]>([])
  private var ending: RelayConnectionError?

  /// Counts of what has been received.
  package private(set) var counters = RelayCounters()
  /// The latest `NOTICE` texts, oldest first.
  package private(set) var notices: [String] = []
  /// The public key of the latest accepted `AUTH`, nil before authentication.
  package private(set) var authenticatedPubkey: String?

  private var nextToken: UInt64 = 0
  private var queries: [UInt64: QueryState] = [:]
  private var subscriptions: [String: UInt64] = [:]
  private var publishes: [UInt64: PublishState] = [:]
  private var latestChallenge: String?
  private var authenticatedChallenge: String?
  private var pendingAuth: [String: String] = [:]
  private var waitingForAuth: [UInt64] = []

  private struct QueryState {
    var filters: [Filter]
    var limits: QueryLimits
    var continuation: CheckedContinuation<Result<[Event], RelayConnectionError>, Never>
    var timer: Task<Void, Never>?
    var subscription: String?
    var retried = false
    var kept: [Event] = []
    var seen: Set<String> = []
    var bytes = 0
    /// Tags of the kept events, against `limits.eventLimits.maxTotalTags`.
    var tags = 0
  }

  private struct PublishState {
    var event: Event
    var message: [UInt8]
    var continuation: CheckedContinuation<Result<PublishResult, RelayConnectionError>, Never>
    var timer: Task<Void, Never>?
    var awaitingOK = false
    var retried = false
  }

  /// Connects to `url` (`ws`, or `wss` on Apple platforms) within `deadline`; `key` (optional)
  /// answers NIP-42 challenges, `clock` dates those answers.
  public static func connect(
    to url: String, key: SecretKey? = nil, clock: @escaping Clock = RelayConnection.systemClock,
    deadline: ContinuousClock.Instant
  ) async throws(RelayConnectionError) -> RelayConnection {
    let parsed = try WebSocketURL(url)
    let transport = try await openWebSocket(to: parsed, deadline: deadline)
    return RelayConnection(transport: transport, url: parsed, key: key, clock: clock)
  }

  /// Speaks NIP-01 over an already open `transport` (the connection owns it from now on).
  package init(
    transport: any WebSocketTransport, url: WebSocketURL, key: SecretKey? = nil,
    clock: @escaping Clock = RelayConnection.systemClock
  ) {
    self.transport = transport
    self.url = url
    self.key = key
    self.clock = clock
    let (stream, outbox) = AsyncStream<[UInt8]>.makeStream()
    self.outbox = outbox
    let writer = Task { [weak self, transport] in
      for await message in stream {
        do throws(RelayConnectionError) {
          try await transport.send(message)
        } catch {
          await self?.ended(error)
          return
        }
      }
    }
    let reader = Task { [weak self, transport] in
      while true {
        do throws(RelayConnectionError) {
          let message = try await transport.receive()
          guard let self else { return }
          await self.handle(message)
        } catch {
          await self?.ended(error)
          return
        }
      }
    }
    tasks.withLock { $0 = [writer, reader] }
  }

  deinit {
    outbox.finish()
    for task in tasks.withLock({ $0 }) { task.cancel() }
    let transport = transport
    Task { await transport.close() }
  }

  /// Sends close 1000 and closes the socket, waiting at most `closeTimeout` (1 s) for the
  /// server's close; pending operations end `connection_closed`.
  public func close() async {
    await close(deadline: .now + WebSocketTimeouts.closeTimeout)
  }

  /// As `close()`, but never waiting past `deadline` (`Docs/Robustness.md`): a command's deadline
  /// bounds the whole command, its close included. A deadline already past still sends the close
  /// frame if the socket takes it at once, and closes the socket.
  public func close(deadline: ContinuousClock.Instant) async {
    ended(RelayConnectionError(code: .connectionClosed, message: "1000 closed by us"))
    outbox.finish()
    await transport.close(by: deadline)
  }

  // MARK: Query

  /// Sends `["REQ",<sub>,filters…]` and returns the stored events up to `EOSE`, in arrival order.
  ///
  /// `invalid_filters` unless 1–100 filters; `subscription_closed` on `CLOSED`; `auth_required`
  /// when authentication did not help (or there is no key); `result_too_large` past `limits`;
  /// `timeout` past `deadline`; `cancelled` when the task is cancelled (the subscription is
  /// closed, the connection stays open).
  public func query(
    _ filters: [Filter], limits: QueryLimits = QueryLimits(), deadline: ContinuousClock.Instant
  ) async throws(RelayConnectionError) -> [Event] {
    guard (1...Self.maxFilters).contains(filters.count) else {
      throw RelayConnectionError(
        code: .invalidFilters, message: "\(filters.count) filters; a query sends 1 to \(Self.maxFilters)")
    }
    return try await operation(deadline: deadline, start: subscribe) { token, continuation, timer in
      queries[token] = QueryState(filters: filters, limits: limits, continuation: continuation)
      queries[token]?.timer = timer
    }
  }

  private func subscribe(_ token: UInt64) {
    guard var state = queries[token] else { return }
    let subscription = Hex.encode(SystemRandom.bytes(16))
    let message = JSONWriter.bytes(
      .array([.string("REQ"), .string(subscription)] + state.filters.map(\.jsonValue)))
    guard message.count <= WebSocketFrameEncoder.maxMessageBytes else {
      return finishQuery(
        token,
        .failure(
          RelayConnectionError(code: .messageTooLarge, message: "REQ of \(message.count) bytes over 4 MiB")))
    }
    state.subscription = subscription
    state.kept = []
    state.seen = []
    state.bytes = 0
    queries[token] = state
    subscriptions[subscription] = token
    outbox.yield(message)
  }

  private func unsubscribe(_ token: UInt64, sendClose: Bool) {
    guard let subscription = queries[token]?.subscription else { return }
    subscriptions[subscription] = nil
    queries[token]?.subscription = nil
    if sendClose, ending == nil {
      outbox.yield(JSONWriter.bytes(.array([.string("CLOSE"), .string(subscription)])))
    }
  }

  private func finishQuery(_ token: UInt64, _ result: Result<[Event], RelayConnectionError>) {
    guard let state = queries.removeValue(forKey: token) else { return }
    if let subscription = state.subscription { subscriptions[subscription] = nil }
    waitingForAuth.removeAll { $0 == token }
    state.timer?.cancel()
    state.continuation.resume(returning: result)
  }

  // MARK: Publish

  /// Sends `["EVENT",event]` and returns the relay's `OK` for it (`accepted` false is an answer).
  ///
  /// `invalid_event` when `event` does not verify (nothing is sent); a first `auth-required:`
  /// answer is retried once after authenticating, a second is returned as the result.
  public func publish(_ event: Event, deadline: ContinuousClock.Instant) async throws(RelayConnectionError)
    -> PublishResult
  {
    guard event.verify().isValid else {
      throw RelayConnectionError(code: .invalidEvent, message: "event \(event.id) does not verify")
    }
    let message = JSONWriter.bytes(.array([.string("EVENT"), event.jsonValue]))
    guard message.count <= WebSocketFrameEncoder.maxMessageBytes else {
      throw RelayConnectionError(
        code: .messageTooLarge, message: "EVENT of \(message.count) bytes over 4 MiB")
    }
    return try await operation(deadline: deadline, start: sendEvent) { token, continuation, timer in
      publishes[token] = PublishState(event: event, message: message, continuation: continuation)
      publishes[token]?.timer = timer
    }
  }

  private func sendEvent(_ token: UInt64) {
    guard let message = publishes[token]?.message else { return }
    publishes[token]?.awaitingOK = true
    outbox.yield(message)
  }

  private func finishPublish(_ token: UInt64, _ result: Result<PublishResult, RelayConnectionError>) {
    guard let state = publishes.removeValue(forKey: token) else { return }
    waitingForAuth.removeAll { $0 == token }
    state.timer?.cancel()
    state.continuation.resume(returning: result)
  }

  // MARK: Operations

  /// Runs one query or publish: `register` stores its state (continuation and deadline timer)
  /// under a new token, then `start` sends it unless the task is already cancelled; cancelling
  /// the task ends it `cancelled`. Fails at once with the connection's ending when it has ended.
  private func operation<Value: Sendable>(
    deadline: ContinuousClock.Instant, start: (UInt64) -> Void,
    register: (UInt64, CheckedContinuation<Result<Value, RelayConnectionError>, Never>, Task<Void, Never>) ->
      Void
  ) async throws(RelayConnectionError) -> Value {
    if let ending { throw ending }
    let token = takeToken()
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        register(token, continuation, timer(token, deadline: deadline))
        if Task.isCancelled { cancelOperation(token) } else { start(token) }
      }
    } onCancel: {
      Task { await self.cancelOperation(token) }
    }
    return try result.get()
  }

  private func takeToken() -> UInt64 {
    nextToken += 1
    return nextToken
  }

  private func timer(_ token: UInt64, deadline: ContinuousClock.Instant) -> Task<Void, Never> {
    Task { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled else { return }
      await self?.expire(token)
    }
  }

  private func expire(_ token: UInt64) {
    if queries[token] != nil {
      unsubscribe(token, sendClose: true)
      finishQuery(
        token, .failure(RelayConnectionError(code: .timeout, message: "query: no EOSE before the deadline")))
    }
    if publishes[token] != nil {
      finishPublish(
        token, .failure(RelayConnectionError(code: .timeout, message: "publish: no OK before the deadline")))
    }
  }

  private func cancelOperation(_ token: UInt64) {
    if queries[token] != nil {
      unsubscribe(token, sendClose: true)
      finishQuery(token, .failure(RelayConnectionError(code: .cancelled, message: "query")))
    }
    if publishes[token] != nil {
      finishPublish(token, .failure(RelayConnectionError(code: .cancelled, message: "publish")))
    }
  }

  private func ended(_ error: RelayConnectionError) {
    guard ending == nil else { return }
    ending = error
    for token in Array(queries.keys) { finishQuery(token, .failure(error)) }
    for token in Array(publishes.keys) { finishPublish(token, .failure(error)) }
    outbox.finish()
  }

  // MARK: Incoming

  private func handle(_ bytes: [UInt8]) {
    let bounded = bytes.withUnsafeBytes { buffer in
      EventFastReader.readEventMessage(buffer) { subscription in
        guard let token = subscriptions[subscription], let state = queries[token],
          let bounds = state.limits.eventLimits
        else { return nil }
        return (bounds, state.tags)
      }
    }
    if let bounded, let token = subscriptions[bounded.subscription] {
      return received(bounded.event, size: bytes.count, for: token)
    }
    guard let message = RelayMessage.parse(bytes) else {
      counters.ignored += 1
      return
    }
    switch message {
    case .event(let subscription, let value):
      guard let token = subscriptions[subscription] else {
        counters.ignored += 1
        return
      }
      received(try? Event(jsonValue: value), size: bytes.count, for: token)
    case .endOfStoredEvents(let subscription):
      guard let token = subscriptions[subscription], let kept = queries[token]?.kept else {
        counters.ignored += 1
        return
      }
      unsubscribe(token, sendClose: true)
      finishQuery(token, .success(kept))
    case .closed(let subscription, let text):
      guard let token = subscriptions[subscription], let state = queries[token] else {
        counters.ignored += 1
        return
      }
      unsubscribe(token, sendClose: false)
      if text.hasPrefix("auth-required:") {
        if key != nil, !state.retried {
          queries[token]?.retried = true
          retryAfterAuthentication(token)
        } else {
          finishQuery(token, .failure(RelayConnectionError(code: .authRequired, message: text)))
        }
      } else {
        finishQuery(token, .failure(RelayConnectionError(code: .subscriptionClosed, message: text)))
      }
    case .ok(let id, let accepted, let text):
      if let challenge = pendingAuth.removeValue(forKey: id) {
        authAnswered(challenge: challenge, accepted: accepted, text: text)
      } else if let token = publishes.first(where: { $0.value.event.id == id && $0.value.awaitingOK })?.key {
        okReceived(token, id: id, accepted: accepted, text: text)
      } else {
        counters.ignored += 1
      }
    case .notice(let text):
      counters.notices += 1
      notices.append(String(decoding: UTF8Text.prefix(text, maxBytes: Self.maxNoticeBytes), as: UTF8.self))
      if notices.count > Self.maxKeptNotices { notices.removeFirst(notices.count - Self.maxKeptNotices) }
    case .auth(let challenge):
      guard challenge.utf8.count <= Self.maxChallengeBytes else {
        counters.ignored += 1
        return
      }
      authenticate(challenge)
    }
  }

  /// Counts an `EVENT` message of `size` bytes for the query of `token` and keeps its event
  /// (nil: it was dropped while read) when it verifies, matches and is new.
  private func received(_ event: Event?, size: Int, for token: UInt64) {
    guard var state = queries[token] else { return }
    state.bytes += size
    guard state.bytes <= state.limits.maxBytes else {
      unsubscribe(token, sendClose: true)
      if state.limits.keepsPrefix, !state.kept.isEmpty {
        counters.dropped += 1
        return finishQuery(token, .success(state.kept))
      }
      return finishQuery(
        token,
        .failure(
          RelayConnectionError(
            code: .resultTooLarge, message: "EVENT messages over \(state.limits.maxBytes) bytes")))
    }
    guard let event, event.verify().isValid,
      state.filters.contains(where: { $0.matches(event) }), !state.seen.contains(event.id),
      state.tags + event.tags.count <= state.limits.eventLimits?.maxTotalTags ?? Int.max
    else {
      queries[token] = state
      counters.dropped += 1
      return
    }
    guard state.kept.count < state.limits.maxEvents else {
      unsubscribe(token, sendClose: true)
      return finishQuery(
        token,
        .failure(
          RelayConnectionError(code: .resultTooLarge, message: "more than \(state.limits.maxEvents) events")))
    }
    state.kept.append(event)
    state.seen.insert(event.id)
    state.tags += event.tags.count
    queries[token] = state
    counters.events += 1
  }

  private func okReceived(_ token: UInt64, id: String, accepted: Bool, text: String) {
    guard let state = publishes[token] else { return }
    publishes[token]?.awaitingOK = false
    if !accepted, text.hasPrefix("auth-required:"), key != nil, !state.retried {
      publishes[token]?.retried = true
      retryAfterAuthentication(token)
      return
    }
    finishPublish(token, .success(PublishResult(id: id, accepted: accepted, message: text)))
  }

  // MARK: NIP-42

  private func authenticate(_ challenge: String) {
    guard challenge != latestChallenge else { return }
    latestChallenge = challenge
    authenticatedChallenge = nil
    guard let key,
      let event = Self.authenticationEvent(
        challenge: challenge, relay: url.text, key: key, createdAt: clock())
    else { return }
    pendingAuth[event.id] = challenge
    outbox.yield(JSONWriter.bytes(.array([.string("AUTH"), event.jsonValue])))
  }

  /// The NIP-42 answer to `challenge` from `relay` (its URL as the client dialled it), signed by
  /// `key` at `createdAt`: the one place a client `AUTH` event is built, for this connection and
  /// for the push relay service's long-lived upstream subscriptions. Nil when signing fails.
  package static func authenticationEvent(challenge: String, relay: String, key: SecretKey, createdAt: Int64)
    -> Event?
  {
    try? UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: createdAt, kind: authKind,
      tags: [["relay", relay], ["challenge", challenge]], content: ""
    ).signed(with: key)
  }

  private func authAnswered(challenge: String, accepted: Bool, text: String) {
    guard challenge == latestChallenge else { return }
    let waiting = waitingForAuth
    guard accepted else {
      waitingForAuth = []
      for token in waiting {
        finishQuery(token, .failure(RelayConnectionError(code: .authFailed, message: text)))
        finishPublish(token, .failure(RelayConnectionError(code: .authFailed, message: text)))
      }
      return
    }
    authenticatedChallenge = challenge
    authenticatedPubkey = key?.publicKeyHex
    waitingForAuth = []
    for token in waiting { retry(token) }
  }

  private func retryAfterAuthentication(_ token: UInt64) {
    if let latestChallenge, authenticatedChallenge == latestChallenge {
      retry(token)
    } else {
      waitingForAuth.append(token)
    }
  }

  private func retry(_ token: UInt64) {
    if queries[token] != nil { subscribe(token) }
    if publishes[token] != nil { sendEvent(token) }
  }
}
