import Foundation
import NostrEvent
import PushDescriptor
import PushLease
import Testing

/// The README's "Enrolling" example, compiled and run against the demo relay's descriptor.
///
/// The code between `README example: begin` and `README example: end` is the README's ```swift
/// block, character for character (`DocumentationDriftTests` checks it).
@Suite struct EnrollingExample {
  @Test func enrollsADeviceAndTheRelayOpensTheLease() throws {
    let nip11 = Array(try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/demo/nip11.json")))
    let accountKey = try SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
    let relayPushKey = try SecretKey(hex: "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
    let now: Int64 = 1_767_225_600
    // README example: begin
    let relay = try RelayDocument(bytes: nip11).push  // validated strictly; its limits size everything
    // The app keeps one enrollment per (origin, account): a fresh installation id.
    var enrollment = LeaseEnrollment(origin: relay.origin, pubkey: accountKey.publicKeyHex)
    let stamp = enrollment.next(now: now)  // save the enrollment, then sign: no generation is reused
    let subscriptions = try SubscriptionPlanner(descriptor: relay).plan(
      for: accountKey.publicKeyHex, joined: ["3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"])  // channel ids
    let app = PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
    let lease = try LeaseBuilder(descriptor: relay, appProfile: app).active(
      endpoint: "gateway-grant-7f3a", subscriptions: subscriptions, generation: stamp.generation,
      createdAt: stamp.createdAt, installationID: enrollment.installationID,
      grantExpiresAt: now + 86_400, now: now, signer: accountKey)
    // kind 30350: d, expiration and exec tags public, the rest NIP-44 to the relay's current push key
    // The relay holds its push keys by id and judges the event (after checking its signature).
    let validator = try LeaseValidator(descriptor: relay, pushKeys: ["demo-2026-01": relayPushKey])
    let opened = try validator.open(lease, tenantOrigin: relay.origin, now: now)
    // opened.address: 30350:<account pubkey>:<installation id>; a refusal is the relay's "invalid: …" text
    // README example: end

    // Revoking: the next stamp (never a reused generation or created_at), then a tombstone.
    let revoke = enrollment.next(now: now)
    let tombstone = try LeaseBuilder(descriptor: relay).tombstone(
      installationID: enrollment.installationID, generation: revoke.generation,
      createdAt: revoke.createdAt, now: now, signer: accountKey)

    var refusal: LeaseRejection?
    do throws(LeaseRejection) {
      _ = try validator.open(lease, tenantOrigin: "wss://elsewhere.example", now: now)
    } catch {
      refusal = error  // message "invalid: origin mismatch", the relay's OK text
    }
    #expect(opened.generation == 1)
    #expect(opened.address.description == "30350:\(accountKey.publicKeyHex):\(enrollment.installationID)")
    #expect(opened.isActive)
    #expect(tombstone.createdAt == now + 1)
    #expect(try validator.open(tombstone, tenantOrigin: relay.origin, now: now).state == .tombstone)
    #expect(refusal?.message == "invalid: origin mismatch")
  }
}
