import Foundation
import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import NostrWebSocket
import PushRelayServer

/// Turns one request into the honest answer of the fixture relay: NIP-11, queries and media.
///
/// It holds a snapshot of what is served, so a request is answered from one consistent state even
/// while a test changes the data.
struct RelayRouter: Sendable {
  /// The most filters one `/query` may carry (100).
  static let maxFiltersPerQuery = 100

  /// The honest answer and what the log and fault matching need to know about the request.
  struct Routed {
    var response: HTTPResponse
    var kinds: Set<Int> = []
    var filters: [Filter] = []
    var authorizedPubkey: String?
    /// The `Sec-WebSocket-Accept` value when the request is a valid WebSocket upgrade.
    var upgradeAccept: String?
    /// An event `POST /events` stored (or passed on), for the open WebSocket subscriptions.
    var broadcast: RelayFixtureData.Entry?
  }

  let origin: RelayOrigin
  let nip11: [UInt8]?
  let store: EventStore
  let media: [String: [UInt8]]
  let mediaRequiresAuthorization: Bool
  let verifier: NIP98Verifier
  let now: Int64
  /// Kinds only their author may read (30350 and `policy.json`'s).
  let authorOnlyKinds: Set<Int>
  /// Stores into the live store (`POST /events`).
  let save: @Sendable (RelayFixtureData.Entry) -> StoreResult
  /// The push half in push mode (lease ingest and visibility, matching of stored events).
  var push: FixturePush? = nil

  /// Answers `request`.
  func route(_ request: HTTPRequest) -> Routed {
    let path = request.path
    if request.header("upgrade") != nil {
      guard path == "/" else { return Routed(response: .error(404, "not found")) }
      return webSocketUpgrade(request)
    }
    if path == "/" { return Routed(response: informationDocument(request)) }
    if path == "/query" { return query(request) }
    if path == "/events" { return postEvent(request) }
    if path.hasPrefix("/media/") { return mediaFile(request, name: String(path.dropFirst("/media/".count))) }
    return Routed(response: .error(404, "not found"))
  }

  /// Checks an upgrade request in the order of RFC 6455 §4.2.1, then the fixture's own limits.
  private func webSocketUpgrade(_ request: HTTPRequest) -> Routed {
    guard request.method == "GET" else { return Routed(response: .error(400, "WebSocket upgrade needs GET")) }
    guard request.header("host") != nil else { return Routed(response: .error(400, "no Host header")) }
    guard request.header("upgrade")?.lowercased() == "websocket" else {
      return Routed(response: .error(400, "Upgrade must be websocket"))
    }
    // Connection, version and key: the production server's own rules.
    let accept: String
    switch WebSocketUpgrade.accept(request.headers) {
    case .success(let value): accept = value
    case .failure(let refusal):
      return Routed(
        response: .error(
          refusal.status, refusal.message, extraHeaders: refusal.headers.map { ($0.name, $0.value) }))
    }
    guard request.body.isEmpty else {
      return Routed(response: .error(400, "a WebSocket upgrade has no body"))
    }
    var routed = Routed(response: HTTPResponse(status: 101, headers: [], body: []))
    routed.upgradeAccept = accept
    return routed
  }

  private func informationDocument(_ request: HTTPRequest) -> HTTPResponse {
    guard request.method == "GET" else {
      return .error(405, "method not allowed", extraHeaders: [("Allow", "GET")])
    }
    guard InformationRequest.accepts(request.header("accept")) else {
      return .error(404, "send Accept: application/nostr+json for the relay information")
    }
    guard let nip11 else { return .error(404, "no relay information document") }
    return HTTPResponse(status: 200, headers: [("Content-Type", InformationRequest.mediaType)], body: nip11)
  }

  private func query(_ request: HTTPRequest) -> Routed {
    var routed = Routed(response: .error(500, "unanswered"))
    let parsed = try? JSONReader().read(request.body)
    let elements = parsed?.arrayValue ?? []
    for element in elements {
      for kind in element.objectValue?["kinds"]?.arrayValue ?? [] {
        if let number = kind.integerValue, let int = Int(exactly: number) { routed.kinds.insert(int) }
      }
    }
    guard request.method == "POST" else {
      routed.response = .error(405, "method not allowed", extraHeaders: [("Allow", "POST")])
      return routed
    }
    do {
      let auth = try verifyNIP98(
        header: request.header("authorization"), target: request.target, method: "POST",
        body: request.body.isEmpty ? nil : request.body, now: now)
      routed.authorizedPubkey = auth.pubkey
    } catch {
      routed.response = Self.refusal(error, "auth-required: NIP-98 \(error.code.rawValue): \(error.message)")
      return routed
    }
    guard let parsed else {
      routed.response = .error(400, "invalid: the body is not JSON")
      return routed
    }
    guard let array = parsed.arrayValue else {
      routed.response = .error(400, "invalid: the body must be a JSON array of filters")
      return routed
    }
    guard array.count <= Self.maxFiltersPerQuery else {
      routed.response = .error(400, "invalid: more than \(Self.maxFiltersPerQuery) filters")
      return routed
    }
    var filters: [Filter] = []
    for (index, element) in array.enumerated() {
      do {
        filters.append(try Filter(jsonValue: element))
      } catch {
        routed.response = .error(400, "invalid: filter [\(index)] \(error.field ?? ""): \(error.message)")
        return routed
      }
    }
    routed.filters = filters
    if let problem = WebSocketRelay.visibilityProblem(
      filters, identity: routed.authorizedPubkey, authorOnlyKinds: authorOnlyKinds)
    {
      routed.response = .error(403, problem)
      return routed
    }
    let identity = routed.authorizedPubkey
    let readable = WebSocketRelay.readableStore(store, filters, identity: identity, push: push)
    routed.response = .json(
      200,
      readable.answer(
        filters, visible: { WebSocketRelay.isVisible($0, to: identity, authorOnlyKinds: authorOnlyKinds) }))
    return routed
  }

  /// `POST /events`: one event, NIP-98 signed with a payload; the signer is the identity and
  /// the answer is the bridge form of the `OK`.
  private func postEvent(_ request: HTTPRequest) -> Routed {
    var routed = Routed(response: .error(500, "unanswered"))
    guard request.method == "POST" else {
      routed.response = .error(405, "method not allowed", extraHeaders: [("Allow", "POST")])
      return routed
    }
    let identity: String
    do {
      let auth = try verifyNIP98(
        header: request.header("authorization"), target: request.target, method: "POST",
        body: request.body, now: now)
      guard !auth.tagValues("payload").isEmpty else {
        routed.response = .error(401, "NIP-98: a payload tag is required")
        return routed
      }
      identity = auth.pubkey
    } catch {
      routed.response = Self.refusal(error, "NIP-98: \(error.message)")
      return routed
    }
    routed.authorizedPubkey = identity
    let relay = WebSocketRelay(
      webSocketURL: origin.webSocketURL, authorOnlyKinds: authorOnlyKinds, now: now,
      store: store,
      save: save, push: push)
    let answer: (id: String?, accepted: Bool, message: String, broadcast: RelayFixtureData.Entry?)
    if let value = try? JSONReader().read(request.body), case .object = value {
      answer = relay.accept(value, size: request.body.count, identity: identity)
      if let kind = value.objectValue?["kind"]?.integerValue.flatMap({ Int(exactly: $0) }) {
        routed.kinds = [kind]
      }
    } else if request.body.count > WebSocketRelay.maxEventBytes {
      answer = (nil, false, "invalid: event over \(WebSocketRelay.maxEventBytes) bytes", nil)
    } else {
      answer = (nil, false, "invalid: malformed event: event: not a JSON object", nil)
    }
    let body = JSONWriter.bytes(
      .object(
        JSONObject([
          "accepted": .bool(answer.accepted), "id": answer.id.map { .string($0) } ?? .null,
          "message": .string(answer.message),
        ])))
    let status = answer.accepted ? 200 : answer.message == FixturePush.internalError ? 500 : 400
    routed.response = .json(status, body)
    routed.broadcast = answer.broadcast
    return routed
  }

  private func mediaFile(_ request: HTTPRequest, name: String) -> Routed {
    var routed = Routed(response: .error(404, "not found"))
    guard MediaName.isSafe(name) else { return routed }
    guard request.method == "GET" else {
      routed.response = .error(405, "method not allowed", extraHeaders: [("Allow", "GET")])
      return routed
    }
    if mediaRequiresAuthorization {
      do {
        let auth = try verifyNIP98(
          header: request.header("authorization"), target: request.target, method: "GET", body: nil,
          now: now)
        routed.authorizedPubkey = auth.pubkey
      } catch {
        routed.response = Self.refusal(
          error, "auth-required: NIP-98 \(error.code.rawValue): \(error.message)")
        return routed
      }
    }
    guard let bytes = media[name] else { return routed }
    let tag = "\"" + Hex.encode(NostrSHA256.hash(bytes)) + "\""
    let headers: [(name: String, value: String)] = [("ETag", tag), ("Cache-Control", "no-cache")]
    if let condition = request.header("if-none-match"), Self.condition(condition, matches: tag) {
      routed.response = HTTPResponse(status: 304, headers: headers, body: [])
      return routed
    }
    routed.response = HTTPResponse(
      status: 200, headers: [("Content-Type", MediaName.contentType(of: name))] + headers, body: bytes)
    return routed
  }

  /// Whether an `If-None-Match` value names `tag` (or is `*`); weak tags compare by their value.
  static func condition(_ value: String, matches tag: String) -> Bool {
    value.split(separator: ",").contains { candidate in
      var text = candidate.trimmingCharacters(in: .whitespaces)
      if text == "*" { return true }
      if text.hasPrefix("W/") { text.removeFirst(2) }
      return text == tag
    }
  }

  /// The answer to a NIP-98 failure: 401 with `message`, or 503 with `Retry-After: 1` when the
  /// replay store could not burn the id (full of live ids, or its database away), since the
  /// header was not at fault and may be sent again.
  static func refusal(_ error: NIP98Error, _ message: String) -> HTTPResponse {
    guard error.code == .unavailable else { return .error(401, message) }
    return .error(503, "unavailable: \(error.message)", extraHeaders: [("Retry-After", "1")])
  }

  /// NIP-98 for `target` on the relay's own base, or (push mode with a tenant origin) on the
  /// tenant's, since clients reach a replica through the one name.
  private func verifyNIP98(header: String?, target: String, method: String, body: [UInt8]?, now: Int64)
    throws(NIP98Error) -> Event
  {
    do {
      return try verifier.verify(
        header: header, url: origin.description + target, method: method, body: body, now: now)
    } catch {
      guard error.code == .urlMismatch, let tenant = push?.tenantHTTPBase else { throw error }
      return try verifier.verify(header: header, url: tenant + target, method: method, body: body, now: now)
    }
  }
}
