import Foundation
import NostrCurlHTTP
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRegistration
import PushRelay
import Testing

@testable import PushGateway

/// Runs `body` with a gateway whose APNs hop is the stand-in over real TLS and HTTP/2, with
/// token auth (the stand-in verifies every JWT).
private func withStandInGateway(
  startingAt start: Int64 = GatewayHarness.start0, _ body: (GatewayHarness, APNsStandIn) async throws -> Void
) async throws {
  try await withAPNsStandIn { standIn in
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    try await standIn.trustJWT(
      keyID: "KEY1234567", teamID: "TEAM123456", publicKeyPEM: try await tool.publicKeyPEM(of: "AuthKey.p8"))
    let clock = ManualUnixClock(seconds: start)
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
  /// The whole push-time path with production parts on both ends: the fixture relay in push mode
  /// (the code `nostr-push relay --push-key-file` runs) matches the demo account's lease and asks
  /// the production gateway, which the app registered and delegated through `GatewayRegistrar`,
  /// and the gateway's APNs request reaches the stand-in with the relay's `request_id`.
  @Test func carriesAFixtureRelaysWakeForARegisteredAppToTheStandIn() async throws {
    // On today's clock: the relay connection signs its NIP-42 AUTH with the system clock.
    try await withStandInGateway(startingAt: Int64(Date().timeIntervalSince1970)) { harness, standIn in
      let demo = PackageRoot.url.appendingPathComponent("Fixtures/demo")
      let keys = try JSONReader().read(Array(try Data(contentsOf: demo.appendingPathComponent("keys.json"))))
        .objectValue
      let manifest = try JSONReader().read(
        Array(try Data(contentsOf: demo.appendingPathComponent("manifest.json")))
      ).objectValue
      let account = try SecretKey(
        hex: try #require(keys?["account"]?.objectValue?["secret_key"]?.stringValue))
      let sender = try SecretKey(hex: try #require(keys?["alice"]?.objectValue?["secret_key"]?.stringValue))
      let channel = try #require(manifest?["channel_id"]?.stringValue)
      let relay = RelayFixtureServer(
        data: try RelayFixtureData.load(folder: demo),
        configuration: RelayFixtureConfiguration(
          now: harness.now,
          push: RelayFixturePushMode(pushKey: SecretKey.generate(), gatewayURL: harness.baseURL)))
      _ = try await relay.start()
      do {
        let descriptor = try #require(relay.pushDescriptor)
        let pushKey = try #require(descriptor.currentKey)
        let profile = try #require(descriptor.appProfiles.first)
        let registrar = try GatewayRegistrar(
          baseURL: harness.baseURL, key: account, transport: harness.http, clock: harness.clock.clock)
        let token = testToken(830)
        guard
          case .created(let installation) = try await registrar.register(
            appProfile: GatewayHarness.profile, deviceToken: token, expiresAt: harness.now + 30 * 86_400,
            deadline: .now + .seconds(10))
        else { throw HarnessFailure(message: "registration was not created") }
        guard
          case .created(let delegation) = try await registrar.delegate(
            installationHandle: installation.handle, relayPubkey: pushKey.pubkey, generation: 1,
            expiresAt: harness.now + 7 * 86_400, deadline: .now + .seconds(10))
        else { throw HarnessFailure(message: "delegation was not created") }
        let subscriptions = try SubscriptionPlanner(descriptor: descriptor).plan(
          for: account.publicKeyHex, joined: [channel])
        let lease = try LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
          endpoint: delegation.endpointGrant, subscriptions: subscriptions, generation: 1,
          createdAt: harness.now,
          installationID: .generate(), grantExpiresAt: delegation.expiresAt, now: harness.now, signer: account
        )
        let app = try await RelayConnection.connect(
          to: descriptor.origin, key: account, deadline: .now + .seconds(10))
        let enrolled = try await app.publish(lease, deadline: .now + .seconds(10))
        await app.close()
        #expect(enrolled.accepted, "\(enrolled.message)")
        let alice = try await RelayConnection.connect(
          to: descriptor.origin, key: sender, deadline: .now + .seconds(10))
        let message = try UnsignedEvent(
          pubkey: sender.publicKeyHex, createdAt: harness.now, kind: 9, tags: [["h", channel]],
          content: "through the real gateway"
        ).signed(with: sender)
        let published = try await alice.publish(message, deadline: .now + .seconds(10))
        await alice.close()
        #expect(published.accepted, "\(published.message)")
        let deadline = ContinuousClock.now + .seconds(20)
        var recorded: [APNsStandIn.Recorded] = []
        while recorded.isEmpty, ContinuousClock.now < deadline {
          try await Task.sleep(for: .milliseconds(50))
          recorded = try await standIn.requests()
        }
        let wakes = try relay.wakes().filter { $0.candidate.eventID == message.id }
        #expect(wakes.count == 1)
        #expect(recorded.count == 1)
        #expect(recorded.first?.path == "/3/device/" + token)
        #expect(recorded.first?.header("apns-id") == wakes.first?.requestID)
        #expect(recorded.first?.jwtValid == true)
      } catch {
        await relay.stop()
        throw error
      }
      await relay.stop()
    }
  }

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
