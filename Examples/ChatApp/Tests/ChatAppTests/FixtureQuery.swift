import Foundation
import NostrEvent

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs NIP-98-signed filters to a fixture relay's `/query`, as a client of the relay would.
enum FixtureQuery {
  /// What came back: the status and the body.
  struct Response: Sendable {
    var status: Int
    var body: [UInt8]
  }

  /// Sends `filtersJSON` to `<origin>/query`, signed by `key` at `now`.
  static func post(_ origin: URL, _ filtersJSON: String, key: SecretKey, now: Int64) async throws -> Response
  {
    let url = origin.appendingPathComponent("query")
    let body = Array(filtersJSON.utf8)
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = Data(body)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue(
      try NIP98.authorizationHeader(url: url.absoluteString, method: "POST", body: body, key: key, now: now),
      forHTTPHeaderField: "Authorization")
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    return Response(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: Array(data))
  }
}
