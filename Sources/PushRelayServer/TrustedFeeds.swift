import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import PushRelay

/// The admin listener: trusted feeds and health.
///
/// - `/` (WebSocket): frames `["EVENT",{…}]` as `strfry router` (a stream with `dir = up`) and
///   `strfry stream` send them; each answered `["OK",id,bool,text]`; anything else a `NOTICE`.
/// - `POST /events`: JSON lines, one event per line (at most ``maxLines``); the answer is one JSON
///   line per input line `{"id":…,"accepted":bool,"message":…}`, 200, or 500 when any line hit a
///   storage failure (the hook sends the batch again).
/// - With `nip98_pubkeys`, both require NIP-98 by one of those keys (the WebSocket on its upgrade
///   request).
/// - `/_liveness` (200 while serving), `/_readiness` (200 when the store answers and every
///   upstream is connected, else 503, with a JSON body saying which), `/metrics`.
///
/// Every event passes ``ServiceIngest``, so a frame that fails verification is dropped and
/// counted like one from an upstream.
struct TrustedFeeds: Sendable {
  /// The largest `POST /events` body: 16 MiB.
  static let maxBodyBytes = 16 * 1024 * 1024
  /// The most lines in one `POST /events`.
  static let maxLines = 10_000

  let ingest: ServiceIngest
  let feeds: PushServiceConfiguration.Feeds
  let clock: UnixClock
  let upstreamURLs: [String]
  let verifier = NIP98Verifier()

  func routes(
    port: @escaping @Sendable () -> UInt16, host: String, relay: PushRelay, events: any ServiceEventStore,
    metrics: ServiceMetrics
  ) -> [HTTPServerRoute] {
    var routes: [HTTPServerRoute] = [
      HTTPServerRoute("GET", "/_liveness") { _ in .text(status: 200, "ok\n") },
      HTTPServerRoute("GET", "/_readiness") { [upstreamURLs] _ in
        let store = await BlockingWork.run { (try? events.size()) != nil }
        let states = upstreamURLs.map { metrics.isConnected($0) }
        let ready = store && states.allSatisfy { $0 }
        let body = JSONObject([
          "store": .bool(store), "upstreams": .array(states.map { .bool($0) }), "ready": .bool(ready),
        ])
        return .json(status: ready ? 200 : 503, JSONWriter.bytes(.object(body)))
      },
      HTTPServerRoute("GET", "/metrics") { [upstreamURLs] _ in
        let wakes = await BlockingWork.run { () -> [String: Int] in
          var counts: [String: Int] = [:]
          for wake in (try? relay.outbox.wakes()) ?? [] { counts[wake.state.rawValue, default: 0] += 1 }
          return counts
        }
        return .text(status: 200, metrics.render(upstreams: upstreamURLs, wakes: wakes))
      },
    ]
    var webSocket: HTTPServerWebSocketHandler?
    if feeds.webSocket {
      let feed = self
      webSocket = { (request: HTTPServerRequest, socket: HTTPServerWebSocket) async -> Void in
        guard feed.authorized(request, url: "ws://\(host):\(port())/") else {
          await socket.close(code: 1008)
          return
        }
        await feed.serveFeed(socket)
      }
    }
    routes.append(
      HTTPServerRoute("GET", "/", webSocket: webSocket) { _ in
        .text(status: 200, "nostr-push relay admin: WebSocket feed at /, POST /events, /metrics\n")
      })
    if feeds.http {
      routes.append(
        HTTPServerRoute("POST", "/events", maxBodyBytes: Self.maxBodyBytes) { request in
          guard self.authorized(request, url: "http://\(host):\(port())/events") else {
            return .json(status: 401, Array(#"{"error":"auth-required: NIP-98 by an allowed key"}"#.utf8))
          }
          return await self.postEvents(request.body)
        })
    }
    return routes
  }

  /// Whether `request` may use a feed: always without an allowlist, else NIP-98 by a listed key.
  private func authorized(_ request: HTTPServerRequest, url: String) -> Bool {
    guard !feeds.nip98Pubkeys.isEmpty else { return true }
    let body: [UInt8]? = request.body.isEmpty ? nil : request.body
    guard
      let event = try? verifier.verify(
        header: request.header("authorization"), url: url, method: request.method, body: body,
        now: clock.now())
    else { return false }
    return feeds.nip98Pubkeys.contains(event.pubkey)
  }

  private func serveFeed(_ socket: HTTPServerWebSocket) async {
    while let message = await socket.receive() {
      guard case .array(let elements)? = try? JSONReader(maxDepth: 8).read(message),
        elements.first?.stringValue == "EVENT", elements.count == 2, case .object = elements[1]
      else {
        try? await socket.send(RelayMessages.notice("invalid: a feed takes [\"EVENT\",{…}] frames"))
        continue
      }
      let ingest = self.ingest
      let size = message.count
      let outcome = await BlockingWork.run { ingest.ingest(elements[1], size: size, source: .webSocketFeed) }
      guard let id = outcome.id else {
        try? await socket.send(RelayMessages.notice(outcome.message))
        continue
      }
      let accepted = outcome.result == .accepted || outcome.result == .duplicate
      do {
        try await socket.send(RelayMessages.ok(id, accepted, outcome.message))
      } catch {
        return
      }
    }
    await socket.close()
  }

  private func postEvents(_ body: [UInt8]) async -> HTTPServerResponse {
    let lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
    guard lines.count <= Self.maxLines else {
      return .json(status: 413, Array("{\"error\":\"over \(Self.maxLines) lines\"}".utf8))
    }
    let ingest = self.ingest
    let answers = await BlockingWork.run { () -> [(JSONValue, Bool)] in
      lines.map { line -> (JSONValue, Bool) in
        guard let value = try? JSONReader(maxDepth: 8).read(line), case .object = value else {
          ingest.metrics.count(.httpFeed, .rejected)
          let answer = JSONObject([
            "id": .null, "accepted": .bool(false), "message": .string("invalid: not a JSON event object"),
          ])
          return (.object(answer), false)
        }
        let outcome = ingest.ingest(value, size: line.count, source: .httpFeed)
        let answer = JSONObject([
          "id": outcome.id.map { .string($0) } ?? .null,
          "accepted": .bool(outcome.result == .accepted || outcome.result == .duplicate),
          "message": .string(outcome.message),
        ])
        return (.object(answer), outcome.result == .failed)
      }
    }
    var output: [UInt8] = []
    for (answer, _) in answers {
      output += JSONWriter.bytes(answer)
      output.append(UInt8(ascii: "\n"))
    }
    let failed = answers.contains { $0.1 }
    return HTTPServerResponse(
      status: failed ? 500 : 200,
      headers: [HTTPServerHeader(name: "Content-Type", value: "application/x-ndjson")], body: output)
  }
}
