import Foundation
import NostrCurlHTTP
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import PushRelay
import Testing

@testable import PushGateway

/// Runs `body` with a gateway whose APNs hop is the stand-in over real TLS and HTTP/2, with
/// token auth (the stand-in verifies every JWT).
private func withStandInGateway(
  _ body: (GatewayHarness, APNsStandIn) async throws -> Void
) async throws {
  try await withAPNsStandIn { standIn in
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    try await standIn.trustJWT(
      keyID: "KEY1234567", teamID: "TEAM123456", publicKeyPEM: try await tool.publicKeyPEM(of: "AuthKey.p8"))
    let clock = ManualUnixClock(seconds: GatewayHarness.start0)
    let tokens = APNsProviderTokens(
      key: key, keyID: try APNsIdentifier("KEY1234567", field: "key_id"),
      teamID: try APNsIdentifier("TEAM123456", field: "team_id"), clock: clock.clock)
    let apns = try CurlHTTPClient(caFile: standIn.caFile)
    let harness = try await GatewayHarness.start(
      transport: CurlAPNsTransport(client: apns, origin: standIn.origin), credential: .token(tokens),
      clock: clock)
    do {
      try await body(harness, standIn)
    } catch {
      await harness.stop()
      await apns.shutdown()
      harness.remove()
      throw error
    }
    await harness.stop()
    await apns.shutdown()
    harness.remove()
  }
}

@Suite struct GatewayStandInTests {
  @Test func sendsTheWakeToTheStandInOverHTTP2WithExactHeadersAndAVerifiedJWT() async throws {
    try await withStandInGateway { harness, standIn in
      let relay = SecretKey.generate()
      let token = testToken(800)
      let (grant, _) = try await harness.grant(owner: SecretKey.generate(), relay: relay, token: token)
      let requestID = freshRequestID()
      let answer = try await harness.deliver(
        grant, relay: relay, requestID: requestID, expiresAt: harness.now + 7200)
      #expect(answer.status == 200)
      #expect(answer.body == #"{"status":"accepted"}"#)
      let recorded = try #require(try await standIn.requests().first)
      #expect(recorded.path == "/3/device/" + token)
      #expect(recorded.jwtValid == true)
      #expect(recorded.header("authorization")?.hasPrefix("bearer ") == true)
      let apnsFields = recorded.headers.filter { $0.name.hasPrefix("apns-") }.map { "\($0.name)=\($0.value)" }
      #expect(
        apnsFields.sorted() == [
          "apns-expiration=\(harness.now + 3600)", "apns-id=\(requestID)", "apns-priority=10",
          "apns-push-type=alert", "apns-topic=org.example.chat",
        ])
      #expect(
        recorded.body == #"{"aps":{"alert":{"title":"Chat","body":"New activity"},"mutable-content":1}}"#)
    }
  }

  @Test func marksTheEndpointDeadOnTheStandInsUnregisteredAndSendsNoMore() async throws {
    try await withStandInGateway { harness, standIn in
      let relay = SecretKey.generate()
      let token = testToken(801)
      let (grant, _) = try await harness.grant(owner: SecretKey.generate(), relay: relay, token: token)
      try await standIn.script(
        #"{"\#(token)":{"status":410,"reason":"Unregistered","timestamp":1767226100000}}"#)
      let first = try await harness.deliver(grant, relay: relay)
      #expect(first.status == 410)
      #expect(first.body == #"{"status":"invalid_endpoint","generation":1,"invalid_at":1767226100}"#)
      #expect(try await harness.deliver(grant, relay: relay).status == 410)
      #expect(try await standIn.requests().count == 1)
    }
  }

  @Test func carriesTheRelaysGatewayClientDeliveryToTheStandInWithItsRequestID() async throws {
    try await withStandInGateway { harness, standIn in
      let relayKey = SecretKey.generate()
      let token = testToken(802)
      let (grant, _) = try await harness.grant(owner: SecretKey.generate(), relay: relayKey, token: token)
      let relayHTTP = try CurlHTTPClient()
      defer { Task { await relayHTTP.shutdown() } }
      let client = try GatewayClient(baseURL: harness.baseURL, transport: relayHTTP, timeout: .seconds(10))
      let candidate = WakeCandidate(
        address: LeaseAddress(
          origin: "wss://relay.example", pubkey: SecretKey.generate().publicKeyHex, d: "app"),
        generation: 1, keyID: "k1", endpoint: grant,
        endpointHash: Hex.encode(NostrSHA256.hash(Array(grant.utf8))),
        transport: "apns", eventID: String(repeating: "e", count: 64), channel: nil, pushClass: "mention",
        expiresAt: harness.now + 600)
      let wake = Wake(
        requestID: WakeRequestID.generate(), candidate: candidate, state: .sending, attempts: 1,
        nextAttemptMilliseconds: 0, fenceMilliseconds: 0, lastStatus: nil)
      let delivered = await client.deliver(wake, key: relayKey, now: harness.now)
      #expect(delivered.answer == .accepted)
      #expect(delivered.status == 200)
      // The relay's retry of the same wake is answered again, without a second APNs request.
      let retried = await client.deliver(wake, key: relayKey, now: harness.now)
      #expect(retried.answer == .accepted)
      let recorded = try await standIn.requests()
      #expect(recorded.count == 1)
      #expect(recorded.first?.header("apns-id") == wake.requestID)
      #expect(recorded.first?.path == "/3/device/" + token)
    }
  }

  @Test func sendsOneAPNsRequestForConcurrentAttemptsOfOneRequestID() async throws {
    try await withStandInGateway { harness, standIn in
      let relay = SecretKey.generate()
      let (grant, _) = try await harness.grant(
        owner: SecretKey.generate(), relay: relay, token: testToken(803))
      let requestID = freshRequestID()
      let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<8 {
          group.addTask { try await harness.deliver(grant, relay: relay, requestID: requestID).status }
        }
        var statuses: [Int] = []
        for try await status in group { statuses.append(status) }
        return statuses
      }
      // Each attempt is answered accepted (the finished one replayed) or told to retry while
      // another attempt holds it; APNs sees it once.
      #expect(statuses.allSatisfy { [200, 503].contains($0) })
      #expect(statuses.contains(200))
      #expect(try await standIn.requests().count == 1)
    }
  }
}
