import Foundation
import NostrHTTP

/// One HTTP request from a test to a loopback server, through the package's own HTTP seam with a
/// deadline, so that a server (or URLSession) that never answers fails the test instead of
/// hanging the run.
public enum LoopbackFetch {
  /// How long a test waits for one answer.
  public static let timeout: Duration = .seconds(10)

  /// The status and body of `method url`, or a thrown `HTTPTransportError` (a timeout among them).
  public static func send(
    _ url: String, method: String = "GET", headers: [String: String] = [:], body: [UInt8]? = nil
  ) async throws -> (status: Int, body: [UInt8]) {
    var headers = headers
    if body != nil, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
    let response = try await URLSessionHTTPTransport.shared.send(
      HTTPTransportRequest(
        url: url, method: method, headers: headers, body: body, maxResponseBytes: 16 << 20),
      deadline: .now + timeout)
    return (response.status, response.body)
  }
}
