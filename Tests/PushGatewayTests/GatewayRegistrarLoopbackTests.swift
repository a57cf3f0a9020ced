import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTesting
import PushGateway
import PushRegistration
import Testing

/// `GatewayRegistrar` against the real `PushGateway` on a loopback socket (SQLite store, libcurl
/// transport): every route, the answers of the route table it classifies, and a grant it got
/// that the delivery route honours.
@Suite struct GatewayRegistrarLoopbackTests {
  func registrar(_ harness: GatewayHarness, _ key: SecretKey) throws -> GatewayRegistrar {
    try GatewayRegistrar(
      baseURL: harness.baseURL, key: key, transport: harness.http, clock: harness.clock.clock)
  }

  var deadline: ContinuousClock.Instant { .now + .seconds(20) }

  @Test func registersDelegatesRotatesAndRevokes() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let registrar = try registrar(harness, owner)
      let token = testToken(1)
      let first = try await registrar.register(
        appProfile: GatewayHarness.profile, deviceToken: token, expiresAt: harness.now + 30 * 86_400,
        deadline: deadline)
      guard case .created(let installation) = first else {
        throw HarnessFailure(message: "register: \(first)")
      }
      #expect(installation.endpointEpoch == 1)
      #expect(installation.expiresAt == harness.now + 30 * 86_400)
      // The same owner and token: its live installation back (200).
      let again = try await registrar.register(
        appProfile: GatewayHarness.profile, deviceToken: token, expiresAt: harness.now + 30 * 86_400,
        deadline: deadline)
      #expect(again == .done(installation))

      let delegated = try await registrar.delegate(
        installationHandle: installation.handle, relayPubkey: relay.publicKeyHex, generation: 5,
        expiresAt: harness.now + 7 * 86_400, deadline: deadline)
      guard case .created(let delegation) = delegated else {
        throw HarnessFailure(message: "delegate: \(delegated)")
      }
      #expect(delegation.endpointGrant.hasPrefix("g1.") && !delegation.endpointGrant.contains(token))
      // The grant the registrar got is one the delivery route takes.
      #expect(try await harness.deliver(delegation.endpointGrant, relay: relay).status == 200)
      #expect(harness.recording.requests.last?.deviceToken == token)

      let stale = try await registrar.delegate(
        installationHandle: installation.handle, relayPubkey: relay.publicKeyHex, generation: 4,
        expiresAt: harness.now + 86_400, deadline: deadline)
      #expect(stale == .staleGeneration)

      let rotated = try await registrar.rotate(
        installationHandle: installation.handle, deviceToken: testToken(2), deadline: deadline)
      guard case .done(let rotation) = rotated else { throw HarnessFailure(message: "rotate: \(rotated)") }
      #expect(rotation.endpointEpoch == 2)
      // The grant of epoch 1 stops working.
      #expect(try await harness.deliver(delegation.endpointGrant, relay: relay).status == 404)

      #expect(
        try await registrar.revoke(
          installationHandle: installation.handle, relayPubkey: relay.publicKeyHex, deadline: deadline)
          == .done(GatewayRevocation()))
      #expect(
        try await registrar.revoke(installationHandle: installation.handle, deadline: deadline)
          == .done(GatewayRevocation()))
      // A revoked installation is gone for its owner too.
      #expect(
        try await registrar.rotate(
          installationHandle: installation.handle, deviceToken: token, deadline: deadline)
          == .notFound)
    }
  }

  @Test func anotherOwnerGetsConflictAndNotFound() async throws {
    try await withGatewayHarness { harness in
      let owner = try registrar(harness, SecretKey.generate())
      let other = try registrar(harness, SecretKey.generate())
      let token = testToken(3)
      let registered = try await owner.register(
        appProfile: GatewayHarness.profile, deviceToken: token, expiresAt: harness.now + 86_400,
        deadline: deadline)
      guard case .created(let installation) = registered else {
        throw HarnessFailure(message: "register: \(registered)")
      }
      #expect(
        try await other.register(
          appProfile: GatewayHarness.profile, deviceToken: token, expiresAt: harness.now + 86_400,
          deadline: deadline) == .installationConflict)
      #expect(
        try await other.revoke(installationHandle: installation.handle, deadline: deadline) == .notFound)
      #expect(
        try await other.rotate(
          installationHandle: installation.handle, deviceToken: testToken(4), deadline: deadline)
          == .notFound)
    }
  }

  @Test func capsInstallationsPerOwner() async throws {
    try await withGatewayHarness { harness in
      let owner = try registrar(harness, SecretKey.generate())
      for seed in 0..<PushGateway.maxInstallationsPerOwner {
        let answer = try await owner.register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(100 + seed),
          expiresAt: harness.now + 86_400,
          deadline: deadline)
        guard case .created = answer else { throw HarnessFailure(message: "register \(seed): \(answer)") }
      }
      #expect(
        try await owner.register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(999), expiresAt: harness.now + 86_400,
          deadline: deadline) == .tooManyInstallations)
    }
  }

  @Test func answersUnknownProfileAndFarExpiryAsInvalidRequest() async throws {
    try await withGatewayHarness { harness in
      let owner = try registrar(harness, SecretKey.generate())
      #expect(
        try await owner.register(
          appProfile: "unknown", deviceToken: testToken(5), expiresAt: harness.now + 86_400,
          deadline: deadline)
          == .invalidRequest(status: 400))
      #expect(
        try await owner.register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(5), expiresAt: harness.now + 91 * 86_400,
          deadline: deadline) == .invalidRequest(status: 400))
    }
  }

  @Test func anOwnerOffTheAllowlistIsRefused() async throws {
    let allowed = SecretKey.generate()
    try await withGatewayHarness(owners: [allowed.publicKeyHex]) { harness in
      let stranger = try registrar(harness, SecretKey.generate())
      #expect(
        try await stranger.register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(6), expiresAt: harness.now + 86_400,
          deadline: deadline) == .ownerNotAllowed)
      let owner = try registrar(harness, allowed)
      guard
        case .created = try await owner.register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(6), expiresAt: harness.now + 86_400,
          deadline: deadline)
      else { throw HarnessFailure(message: "the allowed owner was refused") }
    }
  }

  @Test func aClockOutsideTheWindowIsUnauthorized() async throws {
    try await withGatewayHarness { harness in
      let skewed = try GatewayRegistrar(
        baseURL: harness.baseURL, key: SecretKey.generate(), transport: harness.http,
        clock: .fixed(harness.now - 600))
      #expect(
        try await skewed.register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(7), expiresAt: harness.now + 86_400,
          deadline: deadline) == .unauthorized)
    }
  }
}
