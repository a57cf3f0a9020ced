import NostrHTTP
import NostrPushCore

/// An ``APNsTransport`` that records every request it passes on in ``PushGatewayMetrics``: the
/// status class of the answer (or `transport_error`) and the time it took. Wrap the network
/// transport in it so that each attempt counts, the provider-token retry included.
public struct MeteredAPNsTransport: APNsTransport {
  private let transport: any APNsTransport
  private let metrics: PushGatewayMetrics

  /// `transport`, metered into `metrics`.
  public init(_ transport: any APNsTransport, metrics: PushGatewayMetrics) {
    self.transport = transport
    self.metrics = metrics
  }

  /// Sends through the wrapped transport and records the attempt.
  public func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws(HTTPTransportError)
    -> APNsResponse
  {
    let started = ContinuousClock.now
    do {
      let response = try await transport.send(request, deadline: deadline)
      metrics.recordAPNsAttempt(status: response.status, duration: ContinuousClock.now - started)
      return response
    } catch {
      metrics.recordAPNsAttempt(status: nil, duration: ContinuousClock.now - started)
      throw error
    }
  }
}
