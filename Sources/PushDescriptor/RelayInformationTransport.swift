import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one HTTP exchange returned: the status and at most the allowed number of body bytes.
public struct RelayInformationResponse: Sendable, Hashable {
  /// The HTTP status of the final response (a redirect's own status, as redirects are not followed).
  public var status: Int
  /// The body bytes received.
  public var body: [UInt8]

  /// Creates a response.
  public init(status: Int, body: [UInt8]) {
    self.status = status
    self.body = body
  }
}

/// Sends one NIP-11 `GET`, so a caller can bring its own HTTP client (a shared `URLSession`, a
/// test double, a proxy-aware client).
///
/// A conforming type must not follow redirects, must stop reading once the body passes
/// `maxBodyBytes` (and then throw), and must return promptly when its task is cancelled;
/// `PushDiscovery` checks the status, the size and the deadline itself.
public protocol RelayInformationTransport: Sendable {
  /// Sends `request` and returns the final status and body.
  func send(_ request: URLRequest, maxBodyBytes: Int) async throws -> RelayInformationResponse
}
