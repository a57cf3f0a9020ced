import EnrichmentCache
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import PushDescriptor

/// Talks to one relay on behalf of one account: queries over NIP-98-authenticated `POST /query`
/// or over one WebSocket (``QueryTransport``), and the NIP-11 document over HTTP, each with its
/// own response cap and deadline.
package struct RelayClient: Sendable {
  /// The response cap of the message query.
  package static let messageQueryCap = 1024 * 1024
  /// The response cap of a profile query.
  package static let profileQueryCap = 256 * 1024
  /// The response cap of a channel metadata query.
  package static let channelQueryCap = 64 * 1024
  /// The response cap of a membership query (a roster can be long).
  package static let membershipQueryCap = 2 * 1024 * 1024
  /// The response cap of the NIP-11 document: discovery's (`PushDiscovery.maxBodyBytes`,
  /// 256 KiB), one constant for every NIP-11 fetch.
  package static let informationDocumentCap = PushDiscovery.maxBodyBytes
  /// The `limit` added to a filter that has none.
  package static let defaultLimit = 10
  /// The bounds of a membership answer: a roster is one event of up to `Event.maxTags` `p` tags
  /// (its answer's byte cap bounds it); the other bounds as for messages.
  package static let membershipLimits = EventReadLimits.notification.with(maxTags: Event.maxTags)

  /// The relay's canonical HTTP origin.
  package let origin: RelayOrigin
  private let key: SecretKey
  private let transport: any HTTPTransport
  private let clock: UnixClock
  private let webSocket: WebSocketQuerySession?

  /// Creates a client for `origin`, authenticating as `key`, querying over `queryTransport`.
  ///
  /// `clock` gives NIP-98 and NIP-42 `created_at`; fix it in tests together with the relay's
  /// clock. With `.websocket`, call ``close()`` when the last query is done.
  package init(
    origin: RelayOrigin, key: SecretKey, transport: any HTTPTransport, clock: UnixClock,
    queryTransport: QueryTransport = .httpQuery
  ) {
    self.origin = origin
    self.key = key
    self.transport = transport
    self.clock = clock
    self.webSocket =
      queryTransport == .websocket ? WebSocketQuerySession(origin: origin, key: key, clock: clock) : nil
  }

  /// Closes the WebSocket of a `.websocket` client (a no-op over HTTP).
  package func close() async {
    await webSocket?.close()
  }

  /// The URL of the query endpoint, exactly as sent and as signed in NIP-98 `u`.
  package var queryURL: String { origin.url(path: "/query") }

  /// Sends `filters` to `POST /query` and returns every answered event that parses and verifies;
  /// bad elements are dropped.
  ///
  /// An answer over `cap` bytes keeps every whole event read before the cap; the element the cap
  /// cut and the rest are dropped (`Docs/NotificationServiceExtension.md`), over HTTP and over a
  /// WebSocket alike. Throws when the relay cannot be reached, answers non-2xx, or the body is
  /// not a JSON array.
  package func query(
    _ filters: [Filter], cap: Int, limits: EventReadLimits = .notification, deadline: ContinuousClock.Instant
  )
    async throws(RelayFailure)
    -> [Event]
  {
    try await answer(filters, cap: cap, limits: limits, deadline: deadline).events
  }

  /// What a query answered: its verified events, and whether the answer was cut (at its byte
  /// cap, or by the connection) so that more may have followed.
  package struct Answer: Sendable {
    /// The verified events read whole.
    package var events: [Event]
    /// True when the answer was cut over `POST /query` (a WebSocket answer cut at its cap with no
    /// whole event fails instead; one with events reads as whole).
    package var isCut: Bool
  }

  /// As ``query(_:cap:limits:deadline:)``, saying whether the answer was cut: a caller must not
  /// conclude "nothing new" from a cut answer.
  package func answer(
    _ filters: [Filter], cap: Int, limits: EventReadLimits = .notification, deadline: ContinuousClock.Instant
  )
    async throws(RelayFailure)
    -> Answer
  {
    if let webSocket {
      return Answer(
        events: try await webSocket.query(
          filters.map(Self.withDefaultLimit), cap: cap, limits: limits, deadline: deadline),
        isCut: false)
    }
    let response = try await send(try queryRequest(filters, cap: cap, keepsPrefix: true), deadline: deadline)
    return Answer(
      events: try Self.verifiedEvents(
        in: response.body, cap: cap, limits: limits, isCut: response.isTruncated),
      isCut: response.isTruncated)
  }

  /// The rosters (kind 39002 records) `filter` finds, signed by `signer`: over `POST /query`
  /// read in place (`EventFastReader.readRosters`: the `p` values go straight into a compact set
  /// of 32-byte keys, at most `Membership.maxStoredMembers` kept and the total counted, never an
  /// array of tag arrays); over a WebSocket from the events. Records are made by `EventRecords`,
  /// the cache's one rule.
  package func rosters(_ filter: Filter, signer: String, deadline: ContinuousClock.Instant)
    async throws(RelayFailure) -> [Roster]
  {
    let cap = Self.membershipQueryCap
    if webSocket != nil {
      let events = try await query([filter], cap: cap, limits: Self.membershipLimits, deadline: deadline)
      return events.filter { $0.pubkey == signer && $0.kind == EventKind.groupMembers }.compactMap {
        try? EventRecords.roster($0)
      }
    }
    let response = try await send(try queryRequest([filter], cap: cap), deadline: deadline)
    guard
      let readings = response.body.withUnsafeBytes({
        EventFastReader.readRosters(
          $0, maxBytes: cap, limits: Self.membershipLimits, maxKept: Membership.maxStoredMembers)
      })
    else { throw RelayFailure(.invalidResponse, "the body is not a JSON array within \(cap) bytes") }
    return readings.filter { $0.pubkey == signer }.compactMap { try? EventRecords.roster($0) }
  }

  /// The events of a `/query` answer that parse, keep within `limits` and verify, in order; bad
  /// or oversized elements are dropped.
  ///
  /// The answer is read element by element (`EventFastReader.readArray(_:maxBytes:limits:)`): an
  /// element is located before anything is built, and one over a bound (tags, tag elements,
  /// string length, the answer's tag total) is dropped unbuilt, so memory is bounded by the
  /// limits, not just the byte cap (`Docs/NotificationServiceExtension.md`). An element outside the common
  /// shape goes through the strict reader and `Event(jsonValue:)` when it is small. `isCut`: the
  /// body is the prefix of an answer cut at `cap`; its whole events are kept, the cut one dropped.
  static func verifiedEvents(
    in body: [UInt8], cap: Int, limits: EventReadLimits = .notification, isCut: Bool = false
  ) throws(RelayFailure) -> [Event] {
    guard
      let read = body.withUnsafeBytes({
        EventFastReader.readArray($0, maxBytes: cap, limits: limits, isCut: isCut)
      })
    else {
      throw RelayFailure(.invalidResponse, "the body is not a JSON array within \(cap) bytes")
    }
    return read.events.filter { $0.verify().isValid }
  }

  /// The NIP-98-signed `POST /query` request for `filters` (each with the default `limit` when
  /// it has none).
  private func queryRequest(_ filters: [Filter], cap: Int, keepsPrefix: Bool = false) throws(RelayFailure)
    -> HTTPTransportRequest
  {
    let body = JSONWriter.bytes(.array(filters.map { Self.withDefaultLimit($0).jsonValue }))
    let authorization: String
    do {
      authorization = try NIP98.authorizationHeader(
        url: queryURL, method: "POST", body: body, key: key, now: clock.now())
    } catch {
      throw RelayFailure(.relayError, "could not sign the NIP-98 header")
    }
    return HTTPTransportRequest(
      url: queryURL, method: "POST",
      headers: [
        "Content-Type": "application/json", "Authorization": authorization, "Accept": "application/json",
      ],
      body: body, maxResponseBytes: cap, keepsPrefixPastCap: keepsPrefix)
  }

  /// The relay's own key from its NIP-11 document (`self`, 64 hex), or nil when it names none.
  package func relayKey(deadline: ContinuousClock.Instant) async throws(RelayFailure) -> String? {
    let request = HTTPTransportRequest(
      url: origin.url(path: "/"), method: "GET", headers: ["Accept": "application/nostr+json"],
      maxResponseBytes: Self.informationDocumentCap)
    let response = try await send(request, deadline: deadline)
    guard case .object(let document) = try Self.parse(response.body, cap: Self.informationDocumentCap) else {
      throw RelayFailure(.invalidResponse, "the NIP-11 document is not an object")
    }
    return document["self"]?.stringValue.flatMap(KeyDisplay.pubkey(fromKeyText:))
  }

  private func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant)
    async throws(RelayFailure)
    -> HTTPTransportResponse
  {
    let response: HTTPTransportResponse
    do {
      response = try await transport.send(request, deadline: deadline)
    } catch {
      throw RelayFailure(error)
    }
    guard (200..<300).contains(response.status) else {
      throw RelayFailure(.relayError, "status \(response.status)")
    }
    return response
  }

  private static func parse(_ body: [UInt8], cap: Int) throws(RelayFailure) -> JSONValue {
    do {
      return try JSONReader(maxBytes: cap).read(body)
    } catch {
      throw RelayFailure(.invalidResponse, "body is not JSON (\(error.code.rawValue))")
    }
  }

  private static func withDefaultLimit(_ filter: Filter) -> Filter {
    var filter = filter
    if filter.limit == nil { filter.limit = defaultLimit }
    return filter
  }
}
