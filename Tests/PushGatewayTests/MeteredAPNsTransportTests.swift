import NostrHTTP
import PushGateway
import Testing

@Suite struct MeteredAPNsTransportTests {
  /// Answers each request with the next scripted status, or fails when the script says nil.
  final class ScriptedTransport: APNsTransport, @unchecked Sendable {
    private var script: [Int?]
    init(_ script: [Int?]) { self.script = script }

    func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws(HTTPTransportError)
      -> APNsResponse
    {
      let status = script.removeFirst()
      guard let status else { throw HTTPTransportError(code: .timeout, message: "scripted") }
      return APNsResponse(status: status)
    }
  }

  @Test func countsEachAttemptByStatusClassAndTimesIt() async throws {
    let metrics = PushGatewayMetrics()
    let transport = MeteredAPNsTransport(ScriptedTransport([200, 410, 503, nil, 200]), metrics: metrics)
    let request = APNsRequest(deviceToken: String(repeating: "a", count: 64), headers: [], body: [])
    var thrown = 0
    for _ in 0..<5 {
      do {
        _ = try await transport.send(request, deadline: .now + .seconds(5))
      } catch {
        thrown += 1
      }
    }
    #expect(thrown == 1)
    let text = try PrometheusText(metrics.prometheusText())
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "2xx"]) == 2)
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "4xx"]) == 1)
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "5xx"]) == 1)
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "transport_error"]) == 1)
    #expect(text.value("push_gateway_apns_seconds_count", [:]) == 5)
  }
}
