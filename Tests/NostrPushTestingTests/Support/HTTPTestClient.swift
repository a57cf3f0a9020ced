import Foundation
import NostrEvent
import NostrPushTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession client for the fixture, with helpers for NIP-98-signed requests.
struct HTTPTestClient: Sendable {
  /// What came back.
  struct Response: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    /// A header value by case-insensitive name.
    func header(_ name: String) -> String? {
      headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
  }

  let session: URLSession

  /// Creates a client allowing `connections` connections to the fixture at once.
  init(connections: Int = 8) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = connections
    configuration.timeoutIntervalForRequest = 60
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    session = URLSession(configuration: configuration)
  }

  /// Sends `method` to `url` with `headers` and `body`.
  func send(_ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8]? = nil)
    async throws
    -> Response
  {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let body { request.httpBody = Data(body) }
    let (data, response) = try await session.data(for: request)
    let http = response as! HTTPURLResponse
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      if let name = name as? String, let value = value as? String { fields[name] = value }
    }
    return Response(status: http.statusCode, headers: fields, body: Array(data))
  }

  /// POSTs `filtersJSON` to `<origin>/query`, signed by `key` at `now`.
  func query(_ origin: String, _ filtersJSON: String, key: SecretKey, now: Int64) async throws -> Response {
    let body = Array(filtersJSON.utf8)
    let url = origin + "/query"
    let auth = try NIP98.authorizationHeader(url: url, method: "POST", body: body, key: key, now: now)
    return try await send(
      "POST", url, headers: ["Authorization": auth, "Content-Type": "application/json"], body: body)
  }

  /// GETs `<origin>/media/<name>`, signed by `key` at `now`.
  func media(_ origin: String, _ name: String, key: SecretKey, now: Int64, headers: [String: String] = [:])
    async throws -> Response
  {
    let url = origin + "/media/" + name
    let auth = try NIP98.authorizationHeader(url: url, method: "GET", body: nil, key: key, now: now)
    return try await send("GET", url, headers: headers.merging(["Authorization": auth]) { $1 })
  }

  /// Ends the session.
  func invalidate() {
    session.invalidateAndCancel()
  }
}
