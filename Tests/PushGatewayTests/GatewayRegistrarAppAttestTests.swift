#if os(Linux)
import AppAttest
import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTesting
import PushRegistration
import Testing

@testable import PushGateway

/// `GatewayRegistrar` with an App Attest provider against the real `PushGateway` on loopback
/// whose app requires App Attest (SQLite and, under `Scripts/with-postgres`, PostgreSQL): the
/// provider plays the device under a synthetic root the gateway trusts.
@Suite(.timeLimit(.minutes(2))) struct GatewayRegistrarAppAttestTests {
  static let appID = "TEAM123456.org.example.chat"

  struct World {
    let harness: GatewayHarness
    let authority: SyntheticAppAttestAuthority
    let owner = SecretKey.generate()

    static func start(_ backend: GatewayStoreBackend) async throws -> World {
      let authority = try SyntheticAppAttestAuthority(notBefore: GatewayHarness.start0 - 86_400)
      let verifier = AppAttestVerifier(
        appID: try AppAttestAppID(appID), environment: .development,
        trustAnchor: try AppAttestTrustAnchor(certificate: authority.rootPEM))
      let harness = try await GatewayHarness.start(
        backend: backend, appAttest: [GatewayHarness.profile: verifier])
      return World(harness: harness, authority: authority)
    }

    /// A device of the app (counter rising by `counterStep`) on the gateway's clock.
    func device(counterStep: UInt32 = 1) throws -> SyntheticAppAttestProvider {
      SyntheticAppAttestProvider(
        authority: authority, appID: try AppAttestAppID(GatewayRegistrarAppAttestTests.appID),
        environment: .development, clock: harness.clock.clock, counterStep: counterStep)
    }

    func registrar(_ provider: (any AppAttestProvider)?) throws -> GatewayRegistrar {
      try GatewayRegistrar(
        baseURL: harness.baseURL, key: owner, transport: harness.http, clock: harness.clock.clock,
        appAttest: provider)
    }

    func stop() async {
      await harness.stop()
      harness.remove()
    }
  }

  var deadline: ContinuousClock.Instant { .now + .seconds(20) }

  /// A device without App Attest (a simulator, say): every call says so.
  struct UnsupportedDevice: AppAttestProvider {
    static let error = AppAttestError(code: .attestationUnsupported, message: "no App Attest here")
    func keyID() async throws(AppAttestError) -> [UInt8] { throw Self.error }
    func attest(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8] {
      throw Self.error
    }
    func assert(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8] {
      throw Self.error
    }
    func discardKey() async throws(AppAttestError) {}
  }

  @Test(arguments: GatewayStoreBackend.available)
  func registersDelegatesRotatesAndRevokesWithAttestationAndRisingAssertions(_ backend: GatewayStoreBackend)
    async throws
  {
    let world = try await World.start(backend)
    do {
      let harness = world.harness
      // Without a provider the app's gateway refuses: the typed 401.
      let plain = try world.registrar(nil)
      #expect(
        try await plain.register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(1), expiresAt: harness.now + 86_400,
          deadline: deadline) == .attestationRequired)

      let device = try world.device()
      let registrar = try world.registrar(device)
      let registered = try await registrar.register(
        appProfile: GatewayHarness.profile, deviceToken: testToken(1), expiresAt: harness.now + 30 * 86_400,
        deadline: deadline)
      guard case .created(let installation) = registered else {
        throw HarnessFailure(message: "register: \(registered) \(harness.logs.current)")
      }
      // The gateway stored the device's key, counter 0.
      let keyID = try await device.keyID()
      let stored = try await harness.store.attestation(
        handle: installation.handle, owner: world.owner.publicKeyHex, now: harness.now)
      #expect(stored?.publicKey.map { NostrSHA256.hash($0) } == keyID)
      #expect(stored?.counter == 0)

      let relay = SecretKey.generate()
      let delegated = try await registrar.delegate(
        installationHandle: installation.handle, relayPubkey: relay.publicKeyHex, generation: 1,
        expiresAt: harness.now + 7 * 86_400, deadline: deadline)
      guard case .created(let delegation) = delegated else {
        throw HarnessFailure(message: "delegate: \(delegated) \(harness.logs.current)")
      }
      #expect(try await harness.deliver(delegation.endpointGrant, relay: relay).status == 200)
      let rotated = try await registrar.rotate(
        installationHandle: installation.handle, deviceToken: testToken(2), deadline: deadline)
      guard case .done(let rotation) = rotated else {
        throw HarnessFailure(message: "rotate: \(rotated) \(harness.logs.current)")
      }
      #expect(rotation.endpointEpoch == 2)
      #expect(
        try await registrar.revoke(
          installationHandle: installation.handle, relayPubkey: relay.publicKeyHex, deadline: deadline)
          == .done(GatewayRevocation()))
      // Three assertions so far, each one higher: the stored counter followed.
      let counted = try await harness.store.attestation(
        handle: installation.handle, owner: world.owner.publicKeyHex, now: harness.now)
      #expect(counted?.counter == 3)
      #expect(
        try await registrar.revoke(installationHandle: installation.handle, deadline: deadline)
          == .done(GatewayRevocation()))
      // The revoked installation is gone: 404, before any App Attest check.
      #expect(
        try await plain.delegate(
          installationHandle: installation.handle, relayPubkey: relay.publicKeyHex, generation: 2,
          expiresAt: harness.now + 86_400, deadline: deadline) == .notFound)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test(arguments: GatewayStoreBackend.available)
  func anAssertionWhoseCounterDoesNotRiseIsTheTyped401(_ backend: GatewayStoreBackend) async throws {
    let world = try await World.start(backend)
    do {
      let harness = world.harness
      let registrar = try world.registrar(try world.device(counterStep: 0))
      let registered = try await registrar.register(
        appProfile: GatewayHarness.profile, deviceToken: testToken(3), expiresAt: harness.now + 30 * 86_400,
        deadline: deadline)
      guard case .created(let installation) = registered else {
        throw HarnessFailure(message: "register: \(registered) \(harness.logs.current)")
      }
      // Counter 0 again after the attestation's 0: refused, and the gateway's log names the step.
      let delegated = try await registrar.delegate(
        installationHandle: installation.handle, relayPubkey: SecretKey.generate().publicKeyHex,
        generation: 1, expiresAt: harness.now + 86_400, deadline: deadline)
      #expect(delegated == .invalidAttestation)
      #expect(
        harness.logs.current.contains { $0.contains("counter_not_increasing") }, "\(harness.logs.current)")
      // The plain registrar on an attested installation: attestation_required.
      let plain = try world.registrar(nil)
      #expect(
        try await plain.delegate(
          installationHandle: installation.handle, relayPubkey: SecretKey.generate().publicKeyHex,
          generation: 1, expiresAt: harness.now + 86_400, deadline: deadline) == .attestationRequired)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func aDeviceOfAnotherAppOrAnUnknownKeyIsRefused() async throws {
    let world = try await World.start(.sqlite)
    do {
      let harness = world.harness
      let other = SyntheticAppAttestProvider(
        authority: world.authority, appID: try AppAttestAppID("TEAM123456.org.example.other"),
        environment: .development, clock: harness.clock.clock)
      #expect(
        try await world.registrar(other).register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(4), expiresAt: harness.now + 86_400,
          deadline: deadline) == .invalidAttestation)
      #expect(harness.logs.current.contains { $0.contains("rp_id_mismatch") }, "\(harness.logs.current)")
      // The provider's own failure throws, typed, before anything is sent.
      await #expect(
        throws: GatewayRegistrationError(code: .attestationUnsupported, field: "app_attest", message: "")
      ) {
        _ = try await world.registrar(UnsupportedDevice()).register(
          appProfile: GatewayHarness.profile, deviceToken: testToken(5), expiresAt: harness.now + 86_400,
          deadline: deadline)
      }
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}
#endif
