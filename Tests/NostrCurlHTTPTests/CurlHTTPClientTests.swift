import Foundation
import NostrCurlHTTP
import NostrHTTP
import NostrPushTestSupport
import Testing

/// A POST to the stand-in's APNs path with `apns-id` set.
private func apnsRequest(_ standIn: APNsStandIn, token: String, id: String, cap: Int = 4096)
  -> HTTPTransportRequest
{
  HTTPTransportRequest(
    url: standIn.origin + "/3/device/" + token, method: "POST",
    headers: ["apns-id": id, "content-type": "application/json"], body: Array(#"{"aps":{}}"#.utf8),
    maxResponseBytes: cap)
}

@Suite struct CurlHTTPClientTLSTests {
  @Test func sendsOverTLSAndHTTP2ToTheStandIn() async throws {
    try await withAPNsStandIn { standIn in
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let id = "0A1B2C3D-0000-4000-8000-000000000001"
      let response = try await client.send(
        apnsRequest(standIn, token: "aa11", id: id), deadline: .now + .seconds(10), requireHTTP2: true)
      #expect(response.status == 200)
      #expect(response.headers["apns-id"] == id)
      #expect(response.body.isEmpty)
      let recorded = try await standIn.requests()
      #expect(recorded.count == 1)
      #expect(recorded.first?.path == "/3/device/aa11")
      #expect(recorded.first?.body == #"{"aps":{}}"#)
      #expect(recorded.first?.headers.contains { $0.name == ":method" && $0.value == "POST" } == true)
    }
  }

  @Test func returnsAScriptedRefusalWithItsBody() async throws {
    try await withAPNsStandIn { standIn in
      try await standIn.script(#"{"dead":{"status":410,"reason":"Unregistered","timestamp":1700000000}}"#)
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let response = try await client.send(
        apnsRequest(standIn, token: "dead", id: "0A1B2C3D-0000-4000-8000-000000000002"),
        deadline: .now + .seconds(10), requireHTTP2: true)
      #expect(response.status == 410)
      #expect(response.body == Array(#"{"reason":"Unregistered","timestamp":1700000000}"#.utf8))
    }
  }

  @Test func refusesAServerOutsideTheTrustedCA() async throws {
    try await withAPNsStandIn { standIn in
      // No CA file: the system bundle does not hold this run's CA.
      let client = try CurlHTTPClient()
      defer { Task { await client.shutdown() } }
      await #expect(throws: HTTPTransportError(code: .unreachable, message: "")) {
        _ = try await client.send(apnsRequest(standIn, token: "aa", id: "x"), deadline: .now + .seconds(10))
      }
      #expect(try await standIn.stats().streams == 0)
    }
  }

  @Test func presentsTheClientCertificate() async throws {
    try await withAPNsStandIn { standIn in
      let client = try CurlHTTPClient(
        caFile: standIn.caFile,
        clientCertificate: CurlClientCertificate(
          certificateFile: standIn.clientCertificateFile, keyFile: standIn.clientKeyFile))
      defer { Task { await client.shutdown() } }
      let response = try await client.send(
        apnsRequest(standIn, token: "bb", id: "y"), deadline: .now + .seconds(10))
      #expect(response.status == 200)
      #expect(try await standIn.stats().clientCertificates == ["standin-client"])
    }
  }

  @Test func failsABodyOverTheCap() async throws {
    try await withAPNsStandIn { standIn in
      try await standIn.script(#"{"big":{"status":400,"reason":"BadDeviceTokenWithAVeryLongReason"}}"#)
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      await #expect(throws: HTTPTransportError(code: .tooLarge, message: "")) {
        _ = try await client.send(
          apnsRequest(standIn, token: "big", id: "z", cap: 16), deadline: .now + .seconds(10))
      }
    }
  }
}

@Suite struct CurlHTTPClientMultiplexingTests {
  @Test func sendsManyConcurrentRequestsOverOneConnection() async throws {
    try await withAPNsStandIn { standIn in
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let count = 50
      let ids = try await withThrowingTaskGroup(of: String?.self) { group in
        for index in 0..<count {
          group.addTask {
            let id = String(format: "0A1B2C3D-0000-4000-8000-%012ld", index)
            let response = try await client.send(
              apnsRequest(standIn, token: "c\(index)", id: id), deadline: .now + .seconds(20),
              requireHTTP2: true)
            return response.status == 200 ? response.headers["apns-id"] : nil
          }
        }
        var ids: [String] = []
        for try await id in group { if let id { ids.append(id) } }
        return ids
      }
      #expect(Set(ids).count == count)
      let stats = try await standIn.stats()
      #expect(stats.streams == count)
      #expect(stats.connections == 1)
      #expect(client.connectionsOpened == 1)
    }
  }

  @Test func reusesTheConnectionForSequentialRequests() async throws {
    try await withAPNsStandIn { standIn in
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      for index in 0..<20 {
        let response = try await client.send(
          apnsRequest(standIn, token: "s\(index)", id: "s\(index)"), deadline: .now + .seconds(10))
        #expect(response.status == 200)
      }
      #expect(try await standIn.stats().connections == 1)
    }
  }
}

@Suite struct CurlHTTPClientDeadlineTests {
  @Test func failsByItsDeadlineWhenTheServerStaysSilent() async throws {
    try await withAPNsStandIn { standIn in
      try await standIn.script(#"{"quiet":{"stall":true}}"#)
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let started = ContinuousClock.now
      await #expect(throws: HTTPTransportError(code: .timeout, message: "")) {
        _ = try await client.send(
          apnsRequest(standIn, token: "quiet", id: "q"), deadline: started + .milliseconds(500))
      }
      let elapsed = ContinuousClock.now - started
      #expect(elapsed >= .milliseconds(450))
      #expect(elapsed < .seconds(3))
    }
  }

  @Test func endsAtOnceWhenTheCallerIsCancelled() async throws {
    try await withAPNsStandIn { standIn in
      try await standIn.script(#"{"quiet":{"stall":true}}"#)
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let request = apnsRequest(standIn, token: "quiet", id: "c")
      let task = Task { () -> HTTPTransportError? in
        do throws(HTTPTransportError) {
          _ = try await client.send(request, deadline: .now + .seconds(60))
          return nil
        } catch {
          return error
        }
      }
      // Cancel once the stand-in holds the stream.
      #expect(await Polling.eventuallyAwaiting(within: .seconds(10)) { await standInStreams(standIn) >= 1 })
      let cancelledAt = ContinuousClock.now
      task.cancel()
      let error = await task.value
      #expect(error?.code == .cancelled)
      #expect(ContinuousClock.now - cancelledAt < .seconds(2))
    }
  }

  /// While 64 requests wait on a stalled server, the client's one thread sleeps in
  /// `curl_multi_poll`: its CPU time (`getrusage(RUSAGE_THREAD)`) over the wait stays ≤ 5 % of
  /// the wait (the spec's bound for a stalled APNs).
  @Test func spendsAtMostFivePercentOfACoreWhileRequestsWaitOnAStalledServer() async throws {
    try await withAPNsStandIn { standIn in
      try await standIn.script(#"{"stalled":{"stall":true}}"#)
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let count = 64
      let deadline = ContinuousClock.now + .seconds(4)
      let requests = (0..<count).map { apnsRequest(standIn, token: "stalled", id: "w\($0)") }
      let waiting = Task {
        await withTaskGroup(of: HTTPTransportError?.self) { group in
          for request in requests {
            group.addTask {
              do throws(HTTPTransportError) {
                _ = try await client.send(request, deadline: deadline)
                return nil
              } catch {
                return error
              }
            }
          }
          var errors: [HTTPTransportError?] = []
          for await error in group { errors.append(error) }
          return errors
        }
      }
      #expect(
        await Polling.eventuallyAwaiting(within: .seconds(3)) { await standInStreams(standIn) >= count })
      let cpuBefore = await client.threadCPUTime()
      let wallBefore = ContinuousClock.now
      // The measured interval: the requests wait, nothing is synchronised by it.
      try await Task.sleep(until: deadline - .milliseconds(300), clock: .continuous)
      let cpuAfter = await client.threadCPUTime()
      let wall = ContinuousClock.now - wallBefore
      let errors = await waiting.value
      #expect(errors.count == count)
      #expect(errors.allSatisfy { $0?.code == .timeout })
      #expect(wall >= .seconds(1))
      let share = Double((cpuAfter - cpuBefore).wholeMilliseconds) / Double(wall.wholeMilliseconds)
      #expect(share <= 0.05, "client thread used \(cpuAfter - cpuBefore) of CPU in \(wall)")
    }
  }
}

/// The stand-in's stream count (0 when its control port does not answer).
private func standInStreams(_ standIn: APNsStandIn) async -> Int {
  (try? await standIn.stats().streams) ?? 0
}
