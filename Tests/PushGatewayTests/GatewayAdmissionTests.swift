import Foundation
import NostrEvent
import NostrPushCore
import Testing

@testable import PushGateway

/// The store's admission contract, called directly on a SQLite file.
@Suite struct GatewayAdmissionTests {
  private typealias World = GatewayStoreWorld

  @Test(arguments: GatewayStoreBackend.available)
  func holdsARequestInFlightAndLetsARetryTakeItOverOnceTheHolderIsGone(_ backend: GatewayStoreBackend)
    async throws
  {
    var world = try World(backend)
    defer { world.remove() }
    let id = try await world.delegation()
    let requestID = freshRequestID()
    guard case .admitted = try await world.store.admit(world.admission(id, requestID: requestID)) else {
      Issue.record("not admitted")
      return
    }
    world.now += 5
    #expect(
      try await world.store.admit(world.admission(id, requestID: requestID))
        == .inFlight(retryAfterSeconds: 25))
    world.now += 25
    guard case .admitted = try await world.store.admit(world.admission(id, requestID: requestID)) else {
      Issue.record("the holder's time passed, but the retry was not admitted")
      return
    }
    try await world.store.finish(
      DeliveryCompletion(
        relayPubkey: world.relay, requestID: requestID, disposition: .kept(status: 200, body: [1, 2]),
        now: world.now))
    #expect(
      try await world.store.admit(world.admission(id, requestID: requestID))
        == .replay(status: 200, body: [1, 2]))
  }

  @Test(arguments: GatewayStoreBackend.available)
  func refusesAGrantOfAnotherGenerationEpochOrRelay(_ backend: GatewayStoreBackend) async throws {
    var world = try World(backend)
    defer { world.remove() }
    let id = try await world.delegation()
    #expect(
      try await world.store.admit(world.admission(id, requestID: freshRequestID(), generation: 2))
        == .invalidGrant)
    #expect(
      try await world.store.admit(world.admission(id, requestID: freshRequestID(), epoch: 2)) == .invalidGrant
    )
    var other = world.admission(id, requestID: freshRequestID())
    other.relayPubkey = SecretKey.generate().publicKeyHex
    #expect(try await world.store.admit(other) == .invalidGrant)
    world.now += 3600
    #expect(try await world.store.admit(world.admission(id, requestID: freshRequestID())) == .invalidGrant)
  }

  @Test(arguments: GatewayStoreBackend.available)
  func refusesABurnedAuthIDBeforeAnythingElse(_ backend: GatewayStoreBackend) async throws {
    let world = try World(backend)
    defer { world.remove() }
    let id = try await world.delegation()
    let admission = world.admission(id, requestID: freshRequestID())
    guard case .admitted = try await world.store.admit(admission) else {
      Issue.record("not admitted")
      return
    }
    var replay = admission
    replay.requestID = freshRequestID()
    #expect(try await world.store.admit(replay) == .authReplayed)
  }

  @Test(arguments: GatewayStoreBackend.available)
  func admitsOneOfManyConcurrentAttemptsFromTwoStoreConnections(_ backend: GatewayStoreBackend) async throws {
    let world = try World(backend)
    defer { world.remove() }
    let id = try await world.delegation()
    let replicas = [world.store, try world.location.open()]
    let requestID = freshRequestID()
    let results = try await withThrowingTaskGroup(of: AdmissionResult.self) { group in
      for index in 0..<16 {
        let admission = world.admission(id, requestID: requestID)
        let store = replicas[index % 2]
        group.addTask { try await store.admit(admission) }
      }
      var results: [AdmissionResult] = []
      for try await result in group { results.append(result) }
      return results
    }
    let admitted = results.filter { if case .admitted = $0 { true } else { false } }
    #expect(admitted.count == 1)
    #expect(results.filter { $0 == .inFlight(retryAfterSeconds: 30) }.count == 15)
  }

  @Test(arguments: GatewayStoreBackend.available)
  func sharesOneProviderTokenSlotAcrossConnections(_ backend: GatewayStoreBackend) async throws {
    let world = try World(backend)
    defer { world.remove() }
    let other = try world.location.open()
    let first = APNsProviderToken(jwt: "a.b.c", issuedAt: 1)
    let second = APNsProviderToken(jwt: "d.e.f", issuedAt: 2)
    #expect(try await world.store.replaceProviderToken(slot: "T.K", expected: nil, with: first) == first)
    // A replica that read nothing loses the race and gets the winner's.
    #expect(try await other.replaceProviderToken(slot: "T.K", expected: nil, with: second) == first)
    #expect(try await other.replaceProviderToken(slot: "T.K", expected: first, with: second) == second)
    #expect(try await world.store.providerToken(slot: "T.K") == second)
    #expect(try await world.store.providerToken(slot: "other") == nil)
  }
}

extension GatewayStoreWorld {
  /// A live installation and delegation: the delegation id.
  func delegation() async throws -> String {
    let handle = Hex.encode(SystemRandom.bytes(16))
    let registered = try await store.register(
      InstallationRegistration(
        auth: auth(), owner: owner, appProfile: "chat", fingerprints: [Hex.encode(SystemRandom.bytes(32))],
        newHandle: handle, sealedToken: "sealed", tokenKid: "00000000", expiresAt: now + 86_400, now: now,
        maxPerOwner: 16))
    #expect(registered == .created(handle: handle, epoch: 1, expiresAt: now + 86_400))
    let id = Hex.encode(SystemRandom.bytes(16))
    let delegated = try await store.delegate(
      DelegationRequest(
        auth: auth(), owner: owner, handle: handle, relayPubkey: relay, generation: 1,
        expiresAt: now + 3600,
        newDelegationID: id, now: now, maxPerInstallation: 32))
    #expect(delegated == .delegated(delegationID: id, appProfile: "chat", epoch: 1))
    return id
  }

  func admission(_ delegationID: String, requestID: String, generation: Int64 = 1, epoch: Int64 = 1)
    -> DeliveryAdmission
  {
    DeliveryAdmission(
      auth: auth(), relayPubkey: relay, delegationID: delegationID, appProfile: "chat", epoch: epoch,
      generation: generation, requestID: requestID, wakeExpiresAt: now + 600, now: now,
      quotaPer10Seconds: 10,
      quotaPerHour: 120, inFlightSeconds: 30)
  }
}
