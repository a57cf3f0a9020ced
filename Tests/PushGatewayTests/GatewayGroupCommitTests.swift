import CSQLite
import Foundation
import NostrEvent
import NostrPushCore
import Testing

@testable import PushGateway

/// The SQLite store's group commit: concurrent calls share one `COMMIT`, each in its own savepoint.
@Suite struct GatewayGroupCommitTests {
  private static let now: Int64 = 1_767_226_200

  /// A store in a fresh directory, and a second connection to its file that can hold the write
  /// lock, so calls queue up behind it and are released together.
  private struct World {
    var directory: URL
    var store: SQLitePushGatewayStore
    var blocker: OpaquePointer

    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "gateway-group-commit-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let path = directory.appendingPathComponent("gateway.sqlite").path
      store = try SQLitePushGatewayStore(path: path, busyTimeoutMilliseconds: 60_000)
      var opened: OpaquePointer?
      #expect(sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
      blocker = try #require(opened)
    }

    func holdWriteLock() { #expect(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK) }
    func releaseWriteLock() { #expect(sqlite3_exec(blocker, "COMMIT", nil, nil, nil) == SQLITE_OK) }

    func remove() {
      sqlite3_close_v2(blocker)
      try? FileManager.default.removeItem(at: directory)
    }

    static func auth() -> AuthBurn { AuthBurn(id: Hex.encode(SystemRandom.bytes(32)), expiresAt: now + 120) }

    static func registration(owner: String, handle: String, auth: AuthBurn = auth())
      -> InstallationRegistration
    {
      InstallationRegistration(
        auth: auth, owner: owner, appProfile: "chat", fingerprints: [Hex.encode(SystemRandom.bytes(32))],
        newHandle: handle, sealedToken: "sealed", tokenKid: "00000000", expiresAt: now + 86_400, now: now,
        maxPerOwner: 16)
    }
  }

  @Test func concurrentAdmissionsShareCommitsAndEachIsDurable() async throws {
    let world = try World()
    defer { world.remove() }
    let store = world.store
    let owner = SecretKey.generate().publicKeyHex
    let relay = SecretKey.generate().publicKeyHex
    let handle = Hex.encode(SystemRandom.bytes(16))
    let registered = try await store.register(World.registration(owner: owner, handle: handle))
    #expect(registered == .created(handle: handle, epoch: 1, expiresAt: Self.now + 86_400))
    let delegationID = Hex.encode(SystemRandom.bytes(16))
    let delegated = try await store.delegate(
      DelegationRequest(
        auth: World.auth(), owner: owner, handle: handle, relayPubkey: relay, generation: 1,
        expiresAt: Self.now + 3600, newDelegationID: delegationID, now: Self.now, maxPerInstallation: 32))
    #expect(delegated == .delegated(delegationID: delegationID, appProfile: "chat", epoch: 1))
    let commitsBefore = store.committedTransactions
    #expect(commitsBefore == 2)

    let calls = 64
    let requestIDs = (0..<calls).map { _ in freshRequestID() }
    func admission(_ requestID: String) -> DeliveryAdmission {
      DeliveryAdmission(
        auth: World.auth(), relayPubkey: relay, delegationID: delegationID, appProfile: "chat", epoch: 1,
        generation: 1, requestID: requestID, wakeExpiresAt: Self.now + 600, now: Self.now,
        quotaPer10Seconds: 1000, quotaPerHour: 1000, inFlightSeconds: 30)
    }
    world.holdWriteLock()
    let results = try await withThrowingTaskGroup(of: AdmissionResult.self) { group in
      for requestID in requestIDs {
        group.addTask { try await store.admit(admission(requestID)) }
      }
      // Every call is queued while the first transaction waits for the lock; then they commit.
      await store.received(atLeast: 2 + calls)
      world.releaseWriteLock()
      var results: [AdmissionResult] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(results.count == calls)
    for result in results {
      guard case .admitted(let admitted) = result else {
        Issue.record("not admitted: \(result)")
        continue
      }
      #expect(admitted.handle == handle)
    }
    // The first transaction may hold one call; the next holds every other (batch limit 64).
    let commits = store.committedTransactions - commitsBefore
    #expect(commits >= 1 && commits <= 2, "\(commits) commits for \(calls) calls")
    // Each admission's hold is in the database: a retry of any of them is told to wait.
    for requestID in requestIDs.prefix(8) {
      #expect(try await store.admit(admission(requestID)) == .inFlight(retryAfterSeconds: 30))
    }
  }

  @Test func aFailingCallRollsBackOnlyItselfAndItsNeighboursBurnsStand() async throws {
    let world = try World()
    defer { world.remove() }
    let store = world.store
    let taken = Hex.encode(SystemRandom.bytes(16))
    let first = try await store.register(
      World.registration(owner: SecretKey.generate().publicKeyHex, handle: taken))
    #expect(first == .created(handle: taken, epoch: 1, expiresAt: Self.now + 86_400))

    // A0 first, then the failing call (its new handle is taken: a primary-key violation), then
    // A1…A9, all queued behind the held lock: whatever the first transaction took, the failing
    // call shares a transaction with a neighbour that succeeds.
    let failingOwner = SecretKey.generate().publicKeyHex
    let failing = World.registration(owner: failingOwner, handle: taken)
    let neighbours = (0..<10).map { _ in
      World.registration(owner: SecretKey.generate().publicKeyHex, handle: Hex.encode(SystemRandom.bytes(16)))
    }
    world.holdWriteLock()
    let outcomes = await withTaskGroup(of: (Int, Result<RegistrationResult, PushGatewayError>).self) {
      group in
      func start(_ index: Int, _ registration: InstallationRegistration) {
        group.addTask {
          do throws(PushGatewayError) {
            return (index, .success(try await store.register(registration)))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      start(0, neighbours[0])
      await store.received(atLeast: 2)
      start(-1, failing)
      await store.received(atLeast: 3)
      for index in 1..<neighbours.count { start(index, neighbours[index]) }
      await store.received(atLeast: 2 + neighbours.count)
      world.releaseWriteLock()
      var outcomes: [Int: Result<RegistrationResult, PushGatewayError>] = [:]
      for await (index, outcome) in group { outcomes[index] = outcome }
      return outcomes
    }
    let commits = store.committedTransactions
    #expect(commits >= 2 && commits <= 3, "\(commits) commits")
    guard case .failure(let error) = outcomes[-1] else {
      Issue.record("the duplicate handle was stored: \(String(describing: outcomes[-1]))")
      return
    }
    #expect(error.code == .storageUnavailable)
    for (index, neighbour) in neighbours.enumerated() {
      let expected = RegistrationResult.created(
        handle: neighbour.newHandle, epoch: 1, expiresAt: Self.now + 86_400)
      #expect(try outcomes[index]?.get() == expected)
      // Its burn stands: the same NIP-98 event again is a replay.
      var replay = neighbour
      replay.newHandle = Hex.encode(SystemRandom.bytes(16))
      #expect(try await store.register(replay) == .authReplayed)
    }
    // The failing call's burn went with its savepoint: its event is still good once.
    var retry = failing
    retry.newHandle = Hex.encode(SystemRandom.bytes(16))
    #expect(
      try await store.register(retry)
        == .created(handle: retry.newHandle, epoch: 1, expiresAt: Self.now + 86_400))
  }
}
