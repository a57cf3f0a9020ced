import Foundation
import NostrCurlHTTP
import NostrHTTP
import NostrHTTPServer
import PushGateway
import Testing

/// The admin listener over a real loopback socket, read through libcurl; the Prometheus text is
/// parsed, not matched as a string.
@Suite struct PushGatewayAdminListenerTests {
  /// A listener on a free port, the client reading it, and the metrics it serves.
  struct Running {
    let server: HTTPServer
    let client: CurlHTTPClient
    let metrics: PushGatewayMetrics

    static func start(readiness: PushGatewayReadiness) async throws -> Running {
      let metrics = PushGatewayMetrics()
      let address = try PushGatewayListenAddress("127.0.0.1:0")
      let server = try PushGatewayAdminListener.start(
        address: address, metrics: metrics, readiness: readiness)
      return Running(server: server, client: try CurlHTTPClient(), metrics: metrics)
    }

    func get(_ path: String) async throws -> HTTPTransportResponse {
      try await client.send(
        HTTPTransportRequest(
          url: "http://127.0.0.1:\(server.port)\(path)", method: "GET", maxResponseBytes: 1 << 20),
        deadline: .now + .seconds(20))
    }

    func stop() async {
      await client.shutdown()
      await server.stop(gracePeriod: .seconds(1))
    }
  }

  static let allReady = PushGatewayReadiness(
    store: { true }, keys: { true }, apps: [("chat", { true }), ("mail", { true })])

  @Test func answersLiveness() async throws {
    let running = try await Running.start(readiness: Self.allReady)
    defer { Task { await running.stop() } }
    let response = try await running.get("/_liveness")
    #expect(response.status == 200)
    #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"alive"}"#)
  }

  @Test func answersReadyWhenEveryCheckPasses() async throws {
    let running = try await Running.start(readiness: Self.allReady)
    defer { Task { await running.stop() } }
    let response = try await running.get("/_readiness")
    #expect(response.status == 200)
    #expect(
      String(decoding: response.body, as: UTF8.self)
        == #"{"status":"ready","store":true,"keys":true,"apps":{"chat":true,"mail":true}}"#)
  }

  @Test func answersNotReadyNamingTheFailingPart() async throws {
    let readiness = PushGatewayReadiness(
      store: { true }, keys: { true }, apps: [("chat", { true }), ("mail", { false })])
    let running = try await Running.start(readiness: readiness)
    defer { Task { await running.stop() } }
    let response = try await running.get("/_readiness")
    #expect(response.status == 503)
    #expect(
      String(decoding: response.body, as: UTF8.self)
        == #"{"status":"not_ready","store":true,"keys":true,"apps":{"chat":true,"mail":false}}"#)
  }

  @Test func countsAStoreThatDoesNotAnswerAsNotReady() async throws {
    // The store check never returns on its own: the listener gives up after its timeout.
    let readiness = PushGatewayReadiness(
      store: {
        try? await Task.sleep(for: .seconds(3600))
        return true
      }, keys: { true }, apps: [])
    let running = try await Running.start(readiness: readiness)
    defer { Task { await running.stop() } }
    let started = ContinuousClock.now
    let response = try await running.get("/_readiness")
    #expect(response.status == 503)
    #expect(String(decoding: response.body, as: UTF8.self).contains(#""store":false"#))
    #expect(ContinuousClock.now - started < .seconds(15))
  }

  @Test func readinessChecksTheRealCredentialOfEachApp() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(files.valid))
    let check = PushGatewayReadiness.credentialCheck(for: configuration.apps[0])
    #expect(await check())
  }

  @Test func servesMetricsAsPrometheusText() async throws {
    let running = try await Running.start(readiness: Self.allReady)
    defer { Task { await running.stop() } }
    let metrics = running.metrics
    metrics.recordDelivery(.accepted)
    metrics.recordDelivery(.accepted)
    metrics.recordDelivery(.rateLimited)
    metrics.recordAPNsAttempt(status: 200, duration: .milliseconds(30))
    metrics.recordAPNsAttempt(status: 410, duration: .milliseconds(7))
    metrics.recordAPNsAttempt(status: nil, duration: .seconds(20))
    metrics.recordAdmission(duration: .microseconds(300))
    metrics.recordAdmission(duration: .milliseconds(3))
    metrics.recordRegistration(.installations, .created)
    metrics.recordRegistration(.delegations, .staleGeneration)
    let response = try await running.get("/metrics")
    #expect(response.status == 200)
    #expect(response.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
    let text = try PrometheusText(String(decoding: response.body, as: UTF8.self))
    #expect(text.types["push_gateway_deliveries_total"] == "counter")
    #expect(text.types["push_gateway_admission_seconds"] == "histogram")
    #expect(text.value("push_gateway_deliveries_total", ["outcome": "accepted"]) == 2)
    #expect(text.value("push_gateway_deliveries_total", ["outcome": "rate_limited"]) == 1)
    #expect(text.value("push_gateway_deliveries_total", ["outcome": "invalid_grant"]) == 0)
    #expect(text.value("push_gateway_deliveries_total", ["outcome": "nonexistent"]) == nil)
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "2xx"]) == 1)
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "4xx"]) == 1)
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "transport_error"]) == 1)
    #expect(text.value("push_gateway_apns_attempts_total", ["status_class": "5xx"]) == 0)
    #expect(
      text.value("push_gateway_registrations_total", ["route": "installations", "outcome": "created"]) == 1)
    #expect(
      text.value("push_gateway_registrations_total", ["route": "delegations", "outcome": "stale_generation"])
        == 1)
    #expect(
      text.value("push_gateway_registrations_total", ["route": "delegations", "outcome": "created"]) == 0)
    // Histograms: cumulative buckets ending in +Inf = count; the sum of the observations.
    #expect(text.value("push_gateway_admission_seconds_bucket", ["le": "0.0005"]) == 1)
    #expect(text.value("push_gateway_admission_seconds_bucket", ["le": "0.001"]) == 1)
    #expect(text.value("push_gateway_admission_seconds_bucket", ["le": "0.005"]) == 2)
    #expect(text.value("push_gateway_admission_seconds_bucket", ["le": "+Inf"]) == 2)
    #expect(text.value("push_gateway_admission_seconds_count", [:]) == 2)
    #expect(abs((text.value("push_gateway_admission_seconds_sum", [:]) ?? 0) - 0.0033) < 1e-9)
    #expect(text.value("push_gateway_apns_seconds_bucket", ["le": "0.01"]) == 1)
    #expect(text.value("push_gateway_apns_seconds_bucket", ["le": "0.05"]) == 2)
    #expect(text.value("push_gateway_apns_seconds_bucket", ["le": "10.0"]) == 2)
    #expect(text.value("push_gateway_apns_seconds_bucket", ["le": "+Inf"]) == 3)
    for name in ["push_gateway_admission_seconds", "push_gateway_apns_seconds"] {
      let buckets = text.samples.filter { $0.name == name + "_bucket" }.map(\.value)
      #expect(buckets == buckets.sorted(), "\(name) buckets must be cumulative")
    }
  }

  @Test func labelsComeFromClosedSetsOnly() async throws {
    let metrics = PushGatewayMetrics()
    for outcome in PushGatewayDeliveryOutcome.allCases { metrics.recordDelivery(outcome) }
    let text = try PrometheusText(metrics.prometheusText())
    let allowed: [String: Set<String>] = [
      "outcome": Set(PushGatewayDeliveryOutcome.allCases.map(\.rawValue))
        .union(PushGatewayRegistrationOutcome.allCases.map(\.rawValue)),
      "status_class": Set(APNsStatusClass.allCases.map(\.rawValue)),
      "route": Set(PushGatewayRegistrationRoute.allCases.map(\.rawValue)),
    ]
    #expect(!text.samples.isEmpty)
    for sample in text.samples {
      for (label, value) in sample.labels where label != "le" {
        #expect(allowed[label]?.contains(value) == true, "\(sample.name) \(label)=\(value)")
      }
    }
    // Every series is present from the start: 11 outcomes, 5 classes, 5 routes × 12 outcomes.
    #expect(text.samples.filter { $0.name == "push_gateway_deliveries_total" }.count == 11)
    #expect(text.samples.filter { $0.name == "push_gateway_apns_attempts_total" }.count == 5)
    #expect(text.samples.filter { $0.name == "push_gateway_registrations_total" }.count == 60)
  }
}

/// A parser of the Prometheus text format (0.0.4), strict enough to catch a malformed line:
/// `# HELP`/`# TYPE` comments, and samples `name{label="value",…} number`.
struct PrometheusText {
  struct Sample {
    let name: String
    let labels: [String: String]
    let value: Double
  }

  struct Malformed: Error {
    let line: String
  }

  private(set) var samples: [Sample] = []
  private(set) var types: [String: String] = [:]

  init(_ text: String) throws {
    guard text.hasSuffix("\n") else { throw Malformed(line: "(no final newline)") }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      if line.hasPrefix("# TYPE ") {
        let parts = line.split(separator: " ")
        guard parts.count == 4, ["counter", "histogram", "gauge"].contains(parts[3]) else {
          throw Malformed(line: String(line))
        }
        types[String(parts[2])] = String(parts[3])
        continue
      }
      if line.hasPrefix("# HELP ") { continue }
      guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
        throw Malformed(line: String(line))
      }
      let series = line[..<space]
      var name = series
      var labels: [String: String] = [:]
      if let brace = series.firstIndex(of: "{") {
        guard series.hasSuffix("}") else { throw Malformed(line: String(line)) }
        name = series[..<brace]
        let inner = series[series.index(after: brace)..<series.index(before: series.endIndex)]
        for pair in inner.split(separator: ",") {
          guard let equals = pair.firstIndex(of: "="), pair[pair.index(after: equals)...].hasPrefix("\""),
            pair.hasSuffix("\""), pair.distance(from: equals, to: pair.endIndex) >= 3
          else { throw Malformed(line: String(line)) }
          labels[String(pair[..<equals])] = String(
            pair[pair.index(equals, offsetBy: 2)..<pair.index(before: pair.endIndex)])
        }
      }
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        throw Malformed(line: String(line))
      }
      samples.append(Sample(name: String(name), labels: labels, value: value))
    }
  }

  /// The value of the one sample `name` with exactly `labels`, nil when absent.
  func value(_ name: String, _ labels: [String: String]) -> Double? {
    samples.first { $0.name == name && $0.labels == labels }?.value
  }
}
