import Foundation
import NostrCurlHTTP
import NostrPushTestSupport
import PushGateway
import Testing

private func deviceToken(_ index: Int) -> String { String(format: "%064lx", index) }
private func requestID(_ index: Int) -> String { String(format: "7d1f0b6e-1c2d-4e3f-8a4b-%012lx", index) }

/// An APNs client with token auth against a stand-in that verifies the JWTs (and so starts each
/// connection at one concurrent stream until a valid token arrives).
private func withTokenClient(
  _ body: (APNsClient, CurlHTTPClient, APNsStandIn) async throws -> Void
) async throws {
  try await withAPNsStandIn { standIn in
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    try await standIn.trustJWT(
      keyID: "KEY1234567", teamID: "TEAM123456", publicKeyPEM: try await tool.publicKeyPEM(of: "AuthKey.p8"))
    let clock = UnixClock.fixed(1_700_000_000)
    let tokens = APNsProviderTokens(
      key: key, keyID: try APNsIdentifier("KEY1234567", field: "key_id"),
      teamID: try APNsIdentifier("TEAM123456", field: "team_id"), clock: clock)
    let http = try CurlHTTPClient(caFile: standIn.caFile)
    let app = try APNsApp(
      topic: "org.example.chat", environment: .sandbox, credential: .token(tokens), alertTitle: "T",
      alertBody: "B")
    let client = APNsClient(
      app: app, transport: CurlAPNsTransport(client: http, origin: standIn.origin), clock: clock)
    do {
      try await body(client, http, standIn)
      await http.shutdown()
    } catch {
      await http.shutdown()
      throw error
    }
  }
}

@Suite struct APNsConnectionTests {
  @Test func sendsTwoHundredSequentialDeliveriesOverOneConnection() async throws {
    try await withTokenClient { client, _, standIn in
      var accepted = 0
      for index in 0..<200 {
        let wake = try APNsWake(
          deviceToken: deviceToken(index), requestID: requestID(index), expiresAt: 1_700_000_600)
        if await client.deliver(wake, deadline: .now + .seconds(10)) == .accepted { accepted += 1 }
      }
      #expect(accepted == 200)
      let stats = try await standIn.stats()
      #expect(stats.connections == 1)
      #expect(stats.streams == 200)
    }
  }

  @Test func deliversFiftyConcurrentWakesThroughAStreamLimitOfOne() async throws {
    try await withTokenClient { client, _, standIn in
      let outcomes = await withTaskGroup(of: APNsOutcome.self) { group in
        for index in 0..<50 {
          group.addTask {
            let wake = try! APNsWake(
              deviceToken: deviceToken(1000 + index), requestID: requestID(1000 + index),
              expiresAt: 1_700_000_600)
            return await client.deliver(wake, deadline: .now + .seconds(20))
          }
        }
        var outcomes: [APNsOutcome] = []
        for await outcome in group { outcomes.append(outcome) }
        return outcomes
      }
      #expect(outcomes.count == 50)
      #expect(outcomes.allSatisfy { $0 == .accepted })
      let recorded = try await standIn.requests()
      #expect(Set(recorded.compactMap { $0.header("apns-id") }).count == 50)
      #expect(recorded.allSatisfy { $0.jwtValid == true })
      // Connections open only while the others are at their one-stream limit, and no more than
      // the client's bound: not one per request.
      #expect(
        (1...CurlHTTPClient.defaultMaxConnectionsPerHost).contains(try await standIn.stats().connections))
    }
  }

  @Test func reconnectsAfterGOAWAY() async throws {
    try await withTokenClient { client, _, standIn in
      func deliver(_ index: Int) async throws -> APNsOutcome {
        let wake = try APNsWake(
          deviceToken: deviceToken(index), requestID: requestID(index), expiresAt: 1_700_000_600)
        return await client.deliver(wake, deadline: .now + .seconds(10))
      }
      #expect(try await deliver(1) == .accepted)
      try await standIn.goAway()
      #expect(try await deliver(2) == .accepted)
      #expect(try await deliver(3) == .accepted)
      #expect(try await deliver(4) == .accepted)
      let stats = try await standIn.stats()
      #expect(stats.connections == 2)
      #expect(stats.streams == 4)
    }
  }
}
