import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRelayServer
import Testing

/// `nostr-push doctor --test-wake URL` against the push relay service (in process) following a
/// fixture upstream and waking a gateway fixture: the doctor reads its own lease back, publishes
/// a note the lease matches to the upstream the service names, and the gate passes only when the
/// fixture lists the wake; a refused wake, a lease no stranger's note can match and a URL that is
/// not a gateway fixture each fail the gate, named.
@Suite struct DoctorTestWakeTests {
  /// Runs `body` with a push relay service (`ws://127.0.0.1:<port>`) that follows a fixture
  /// upstream and delivers to `gateway`, and the account's key file.
  static func withService(
    gateway: GatewayFixture, _ body: (_ relay: String, _ accountKey: String) async throws -> Void
  ) async throws {
    try await withRelay { upstream in
      let upstreamURL =
        "ws" + RelayServiceCommandTests.base(try #require(upstream.baseURL)).dropFirst("http".count)
      let (folder, config) = try RelayServiceCommandTests.folder(
        upstream: upstreamURL, gateway: RelayServiceCommandTests.base(try #require(gateway.baseURL)))
      defer { try? FileManager.default.removeItem(atPath: folder) }
      let accountKey = folder + "/account.key"
      FileManager.default.createFile(
        atPath: accountKey, contents: Data(DoctorLeaseKeyTests.accountHex.utf8),
        attributes: [.posixPermissions: 0o600])
      let service = try await PushService.start(try PushServiceConfiguration(file: config))
      do {
        try await body("ws://127.0.0.1:\(service.port)", accountKey)
      } catch {
        await service.stop()
        throw error
      }
      await service.stop()
    }
  }

  /// Enrolls a lease of the account at `relay` with one subscription over `filter`'s members.
  static func enroll(
    at relay: String, gateway: GatewayFixture,
    filter: (PushDescriptor) throws -> LeaseFilter
  ) async throws {
    let document = try await LoopbackFetch.send(
      "http" + relay.dropFirst("ws".count) + "/", headers: ["Accept": "application/nostr+json"])
    let descriptor = try RelayDocument(bytes: document.body).push
    let now = Int64(Date().timeIntervalSince1970)
    let grant = try gateway.issueGrant(
      relayPubkey: (try SecretKey(hex: RelayServiceCommandTests.pushKey)).publicKeyHex, deviceToken: "aabbcc")
    let lease = try LeaseBuilder(
      descriptor: descriptor, appProfile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
    ).active(
      endpoint: grant.grant,
      subscriptions: [try LeaseSubscription(filter: try filter(descriptor), class: "default")],
      generation: 1, createdAt: now, installationID: InstallationID.generate(), now: now,
      signer: RelayServiceCommandTests.account)
    let client = try await RelayConnection.connect(
      to: relay, key: RelayServiceCommandTests.account, deadline: .now + .seconds(5))
    let answer = try await client.publish(lease, deadline: .now + .seconds(5))
    await client.close()
    #expect(answer.accepted, "\(answer.message)")
  }

  /// A lease for kind 1 mentions of the account.
  static func mentions(_ descriptor: PushDescriptor) throws -> LeaseFilter {
    try LeaseFilter(
      kinds: [1], pTags: [RelayServiceCommandTests.account.publicKeyHex], descriptor: descriptor)
  }

  @Test func aHealthySetupPassesEveryGateWithTheWakeDelivered() async throws {
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      let gatewayBase = RelayServiceCommandTests.base(try #require(gateway.baseURL))
      try await Self.withService(gateway: gateway) { relay, accountKey in
        // Before enrolling, the lease gate fails and the test wake is not checked.
        let before = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--test-wake", gatewayBase,
        ])
        #expect(before.status == 1)
        #expect(
          before.stdout.split(separator: "\n").last
            == "✗ test wake: not checked: no lease passed its gate", "\(before.stdout)")
        #expect(gateway.deliveries().isEmpty)
        try await Self.enroll(at: relay, gateway: gateway, filter: Self.mentions)
        let healthy = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--gateway", gatewayBase,
          "--test-wake", gatewayBase,
        ])
        #expect(healthy.status == 0, "\(healthy.stdout)\(healthy.stderr)")
        let lines = healthy.stdout.split(separator: "\n")
        #expect(lines.count == 6, "\(healthy.stdout)")
        #expect(lines.allSatisfy { $0.hasPrefix("✓ ") }, "\(healthy.stdout)")
        let delivered = gateway.deliveries()
        #expect(delivered.count == 1)
        #expect(
          lines.last?.hasPrefix("✓ test wake: a wake for d=") == true
            && lines.last?.contains("(request \(delivered.first?.requestID ?? "none"))") == true,
          "\(healthy.stdout)")
        // A URL that is not a gateway fixture: the gate fails, named, and nothing is published.
        let wrong = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--test-wake",
          gatewayBase + "/elsewhere",
        ])
        #expect(wrong.status == 1)
        let failing = wrong.stdout.split(separator: "\n").filter { $0.hasPrefix("✗ ") }
        #expect(failing.count == 1, "\(wrong.stdout)")
        #expect(
          failing.first?.hasPrefix(
            "✗ test wake: \(gatewayBase)/elsewhere/v1/test/deliveries answered HTTP 404")
            == true, "\(wrong.stdout)")
        #expect(gateway.deliveries().count == 1)
      }
    }
  }

  @Test func aWakeTheGatewayRefusesFailsTheTestWakeGateNamed() async throws {
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      let gatewayBase = RelayServiceCommandTests.base(try #require(gateway.baseURL))
      try await Self.withService(gateway: gateway) { relay, accountKey in
        try await Self.enroll(at: relay, gateway: gateway, filter: Self.mentions)
        gateway.script([GatewayScriptEntry(status: 410)])
        let run = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--test-wake", gatewayBase,
          "--timeout-ms", "4000",
        ])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 5, "\(run.stdout)")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("✓ ") }, "\(run.stdout)")
        #expect(lines.last?.hasPrefix("✗ test wake: no wake for d=") == true, "\(run.stdout)")
        #expect(
          lines.last?.hasSuffix("it answered HTTP 410 to new delivery requests") == true, "\(run.stdout)")
        #expect(gateway.deliveries().isEmpty)
        #expect(gateway.requests().map(\.status) == [410])
      }
    }
  }

  @Test func aLeaseOnlyChannelMembersMatchFailsTheTestWakeGateNamed() async throws {
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      let gatewayBase = RelayServiceCommandTests.base(try #require(gateway.baseURL))
      try await Self.withService(gateway: gateway) { relay, accountKey in
        try await Self.enroll(at: relay, gateway: gateway) { descriptor in
          try LeaseFilter(kinds: [9], hTags: ["3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"], descriptor: descriptor)
        }
        let run = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--test-wake", gatewayBase,
        ])
        #expect(run.status == 1)
        #expect(
          run.stdout.split(separator: "\n").last?.hasSuffix(
            "no subscription can be matched by a test event; the first: its kinds [9] are channel messages, which wake only members of the channel's roster"
          ) == true, "\(run.stdout)")
        #expect(gateway.requests().isEmpty)
      }
    }
  }
}
