import Foundation
import NostrEvent
import NostrJSON

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
  }

  let origin: String
  let nip11: [UInt8]?
  let store: EventStore
  let media: [String: [UInt8]]
  let mediaRequiresAuthorization: Bool
  let verifier: NIP98Verifier
  let now: Int64

  /// Answers `request`.
  func route(_ request: HTTPRequest) -> Routed {
    let path = request.path
    if path == "/" { return Routed(response: informationDocument(request)) }
    if path == "/query" { return query(request) }
    if path.hasPrefix("/media/") { return mediaFile(request, name: String(path.dropFirst("/media/".count))) }
    return Routed(response: .error(404, "not found"))
  }

  private func informationDocument(_ request: HTTPRequest) -> HTTPResponse {
    guard request.method == "GET" else {
      return .error(405, "method not allowed", extraHeaders: [("Allow", "GET")])
    }
    let accepted = (request.header("accept") ?? "").lowercased().split(separator: ",").contains {
      $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/nostr+json"
    }
    guard accepted else {
      return .error(404, "send Accept: application/nostr+json for the relay information")
    }
    guard let nip11 else { return .error(404, "no relay information document") }
    return HTTPResponse(status: 200, headers: [("Content-Type", "application/nostr+json")], body: nip11)
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
      let auth = try verifier.verify(
        header: request.header("authorization"), url: origin + request.target, method: "POST",
        body: request.body.isEmpty ? nil : request.body, now: now)
      routed.authorizedPubkey = auth.pubkey
    } catch {
      routed.response = .error(401, "auth-required: NIP-98 \(error.code.rawValue): \(error.message)")
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
    routed.response = .json(200, store.answer(filters))
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
        let auth = try verifier.verify(
          header: request.header("authorization"), url: origin + request.target, method: "GET", body: nil,
          now: now)
        routed.authorizedPubkey = auth.pubkey
      } catch {
        routed.response = .error(401, "auth-required: NIP-98 \(error.code.rawValue): \(error.message)")
        return routed
      }
    }
    guard let bytes = media[name] else { return routed }
    let tag = "\"" + Hex.encode(SHA256.hash(bytes)) + "\""
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
}
