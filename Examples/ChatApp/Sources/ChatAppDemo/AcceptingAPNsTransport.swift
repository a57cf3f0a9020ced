import Foundation
import NostrHTTP
import PushGateway

/// TEST FIXTURE, not production: an `APNsTransport` that answers every request as APNs accepts
/// one (200 with the `apns-id` echoed) and keeps what the gateway sent, in place of the network
/// hop to Apple.
public final class AcceptingAPNsTransport: APNsTransport, @unchecked Sendable {
  private let lock = NSLock()
  private var sent: [APNsRequest] = []

  /// A transport that has sent nothing yet.
  public init() {}

  /// Every request so far, in order.
  public var requests: [APNsRequest] { lock.withLock { sent } }

  /// Keeps `request` and answers 200.
  public func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws(HTTPTransportError)
    -> APNsResponse
  {
    lock.withLock { sent.append(request) }
    let id = request.headers.first { $0.name == "apns-id" }?.value ?? ""
    return APNsResponse(status: 200, headers: ["apns-id": id])
  }
}
