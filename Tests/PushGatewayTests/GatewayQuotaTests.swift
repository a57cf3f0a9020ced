import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import Testing

@testable import PushGateway

@Suite struct GatewayQuotaTests {
  @Test(arguments: GatewayStoreBackend.available)
  func answersRateLimitedPer10SecondsAndPerHourWithTheWaitAndNeverRefunds(_ backend: GatewayStoreBackend)
    async throws
  {
    try await withGatewayHarness(quota: (2, 3), backend: backend) { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let token = testToken(400)
      let (grant, _) = try await harness.grant(owner: owner, relay: relay, token: token)
      // A refused attempt still counts: the quota bounds what reaches APNs.
      harness.recording.script(token, .response(APNsResponse(status: 500)))
      #expect(try await harness.deliver(grant, relay: relay).status == 503)
      harness.clock.advance(by: .seconds(4))
      #expect(try await harness.deliver(grant, relay: relay).status == 200)
      let limited = try await harness.deliver(grant, relay: relay)
      #expect(limited.status == 429)
      // The oldest counted admission (4 s ago) leaves the 10 s window in 6 s.
      #expect(limited.body == #"{"status":"rate_limited","retry_after_seconds":6}"#)
      #expect(harness.recording.requests.count == 2)
      harness.clock.advance(by: .seconds(6))
      #expect(try await harness.deliver(grant, relay: relay).status == 200)
      harness.clock.advance(by: .seconds(20))
      let hourly = try await harness.deliver(grant, relay: relay)
      #expect(hourly.status == 429)
      #expect(hourly.body == #"{"status":"rate_limited","retry_after_seconds":\#(3600 - 30)}"#)
      harness.clock.advance(by: .seconds(3600 - 30))
      #expect(try await harness.deliver(grant, relay: relay).status == 200)
      #expect(harness.recording.requests.count == 4)
    }
  }

  @Test func countsPerDeviceSoOneDevicesFloodLeavesAnotherAlone() async throws {
    try await withGatewayHarness(quota: (1, 10)) { harness in
      let relay = SecretKey.generate()
      let (flooded, _) = try await harness.grant(
        owner: SecretKey.generate(), relay: relay, token: testToken(401))
      let (quiet, _) = try await harness.grant(
        owner: SecretKey.generate(), relay: relay, token: testToken(402))
      #expect(try await harness.deliver(flooded, relay: relay).status == 200)
      #expect(try await harness.deliver(flooded, relay: relay).status == 429)
      #expect(try await harness.deliver(quiet, relay: relay).status == 200)
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func answersAReplayOfAFinishedRequestWithoutQuotaOrAPNs(_ backend: GatewayStoreBackend) async throws {
    try await withGatewayHarness(quota: (1, 10), backend: backend) { harness in
      let relay = SecretKey.generate()
      let (grant, _) = try await harness.grant(
        owner: SecretKey.generate(), relay: relay, token: testToken(403))
      let requestID = freshRequestID()
      #expect(try await harness.deliver(grant, relay: relay, requestID: requestID).status == 200)
      for _ in 0..<3 {
        let replay = try await harness.deliver(grant, relay: relay, requestID: requestID)
        #expect(replay.status == 200)
        #expect(replay.body == #"{"status":"accepted"}"#)
      }
      #expect(harness.recording.requests.count == 1)
      #expect(harness.gateway.metrics.deliveries("replay") == 3)
    }
  }
}
