#if os(Linux)
import AppAttest
import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import Testing

@testable import PushGateway

/// A gateway whose app requires App Attest, over real loopback HTTP, with attestations and
/// assertions made per run under a throwaway root the gateway trusts (`SyntheticAppAttest`).
@Suite(.timeLimit(.minutes(2))) struct GatewayAppAttestTests {
  /// A started gateway requiring App Attest for its app, its material, and an owner.
  struct World {
    var harness: GatewayHarness
    var material: SyntheticAppAttest
    var owner = SecretKey.generate()

    /// The leaves are valid from the moment `openssl` makes them (later than the start) for a day,
    /// so the gateway's clock stands a minute after the real start time.
    static func start() async throws -> World {
      let material = try await SyntheticAppAttest.make()
      let verifier = AppAttestVerifier(
        appID: try AppAttestAppID(SyntheticAppAttest.Attestation().appID), environment: .development,
        trustAnchor: try AppAttestTrustAnchor(certificate: material.rootPEM))
      let harness = try await GatewayHarness.start(
        clock: ManualUnixClock(seconds: Int64(Date().timeIntervalSince1970) + 60),
        appAttest: [GatewayHarness.profile: verifier])
      return World(harness: harness, material: material)
    }

    func stop() async {
      await harness.stop()
      harness.remove()
      material.remove()
    }

    /// POSTs `object` (compact, as the gateway requires) to `path`, signed by the owner.
    func post(_ path: String, _ object: JSONObject) async throws -> GatewayAnswerSeen {
      try await harness.post(path, JSONWriter.string(.object(object)), key: owner)
    }

    /// A challenge from `path`: its id and text.
    func challenge(_ path: String, _ body: JSONObject) async throws -> (id: String, text: String) {
      let answer = try await post(path, body)
      guard answer.status == 201, let id = answer.object?["challenge_id"]?.stringValue,
        let text = answer.object?["challenge"]?.stringValue
      else { throw HarnessFailure(message: "challenge answered \(answer.status) \(answer.body)") }
      return (id, text)
    }

    func installationChallenge() async throws -> (id: String, text: String) {
      try await challenge(
        "/v1/installations/challenges",
        JSONObject(["v": .integer(1), "app_profile": .string(GatewayHarness.profile)]))
    }

    /// Registers `token` with an attestation over the right transcript for `challenge` (a fresh
    /// one when nil); the answer and the attested key's material.
    func register(
      token: String, challenge given: (id: String, text: String)? = nil,
      transcriptHash: (([UInt8]) -> [UInt8])? = nil
    ) async throws -> (answer: GatewayAnswerSeen, made: SyntheticAppAttest.Made) {
      var challenge = given ?? ("", "")
      if given == nil { challenge = try await installationChallenge() }
      let expiresAt = harness.now + 30 * 86_400
      let transcript = try AppAttestTranscript.installation(
        publicURL: harness.baseURL, appProfile: GatewayHarness.profile, challenge: challenge.text,
        endpoint: token,
        expiresAt: expiresAt, owner: owner.publicKeyHex)
      var shape = SyntheticAppAttest.Attestation()
      shape.clientDataHash = transcriptHash?(transcript.clientDataHash) ?? transcript.clientDataHash
      let made = try await material.make(shape)
      let answer = try await post(
        "/v1/installations",
        JSONObject([
          "v": .integer(1), "app_profile": .string(GatewayHarness.profile), "endpoint": .string(token),
          "expires_at": .integer(expiresAt), "challenge_id": .string(challenge.id),
          "key_id": .string(AppAttestBase64.encoded(made.keyID)),
          "attestation": .string(AppAttestBase64.urlEncoded(made.object)),
        ]))
      return (answer, made)
    }

    /// The body of a delegation of `handle` to `relay`, asserted with `counter` by `made`'s key
    /// over a fresh challenge (nil: no assertion).
    func delegationBody(
      handle: String, relay: String, generation: Int64, made: SyntheticAppAttest.Made?, counter: UInt32
    ) async throws -> JSONObject {
      var fields = JSONObject([
        "v": .integer(1), "installation_handle": .string(handle), "relay_pubkey": .string(relay),
        "generation": .integer(generation), "expires_at": .integer(harness.now + 86_400),
      ])
      guard let made else { return fields }
      let challenge = try await challenge(
        "/v1/delegations/challenges", JSONObject(["v": .integer(1), "installation_handle": .string(handle)]))
      let transcript = try AppAttestTranscript.assertion(
        route: .delegation, publicURL: harness.baseURL, challenge: challenge.text, fields: fields)
      let assertion = try await material.assertion(
        leafKey: made.leafKey, clientData: transcript.clientData, counter: counter)
      fields["challenge_id"] = .string(challenge.id)
      fields["assertion"] = .string(AppAttestBase64.encoded(assertion))
      return fields
    }

    /// The handle of an attested registration of `token`.
    func attestedInstallation(token: String) async throws -> (handle: String, made: SyntheticAppAttest.Made) {
      let (answer, made) = try await register(token: token)
      guard answer.status == 201, let handle = answer.object?["installation_handle"]?.stringValue else {
        throw HarnessFailure(message: "registration answered \(answer.status) \(answer.body)")
      }
      return (handle, made)
    }

    var logs: [String] { harness.logs.current }
  }

  @Test func registrationNeedsAnAttestationOverItsTranscriptAndEachChallengeServesOnce() async throws {
    let world = try await World.start()
    do {
      // Without attestation: 401 attestation_required.
      let plain = try await world.harness.register(world.owner, token: testToken(1))
      #expect(plain.status == 401)
      #expect(plain.object?["error"]?.stringValue == "attestation_required")
      // With a valid attestation: 201, and the key is stored.
      let challenge = try await world.installationChallenge()
      let (first, made) = try await world.register(token: testToken(1), challenge: challenge)
      #expect(first.status == 201, "\(first.body)")
      let handle = try #require(first.object?["installation_handle"]?.stringValue)
      let state = try await world.harness.store.attestation(
        handle: handle, owner: world.owner.publicKeyHex, now: world.harness.now)
      #expect(state?.publicKey == made.publicKey)
      #expect(state?.counter == 0)
      // The same challenge again, with another valid attestation: 401 invalid_attestation.
      let (again, _) = try await world.register(token: testToken(2), challenge: challenge)
      #expect(again.status == 401)
      #expect(again.object?["error"]?.stringValue == "invalid_attestation")
      // An attestation over other client data: refused, the log names the step, the answer not.
      let (other, _) = try await world.register(token: testToken(3), transcriptHash: { NostrSHA256.hash($0) })
      #expect(other.status == 401)
      #expect(other.body == #"{"error":"invalid_attestation"}"#)
      #expect(world.logs.contains { $0.contains("nonce_mismatch") }, "\(world.logs)")
      // A challenge of another owner is consumed and fails.
      let stranger = SecretKey.generate()
      let theirs = try await world.harness.post(
        "/v1/installations/challenges",
        JSONWriter.string(
          .object(JSONObject(["v": .integer(1), "app_profile": .string(GatewayHarness.profile)]))),
        key: stranger)
      let theirID = try #require(theirs.object?["challenge_id"]?.stringValue)
      let theirText = try #require(theirs.object?["challenge"]?.stringValue)
      let (stolen, _) = try await world.register(token: testToken(4), challenge: (theirID, theirText))
      #expect(stolen.status == 401)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func aDelegationNeedsAnAssertionWhoseCounterRises() async throws {
    let world = try await World.start()
    do {
      let (handle, made) = try await world.attestedInstallation(token: testToken(10))
      let relay = SecretKey.generate().publicKeyHex
      let none = try await world.post(
        "/v1/delegations",
        try await world.delegationBody(handle: handle, relay: relay, generation: 1, made: nil, counter: 0))
      #expect(none.status == 401)
      #expect(none.object?["error"]?.stringValue == "attestation_required")
      let first = try await world.post(
        "/v1/delegations",
        try await world.delegationBody(handle: handle, relay: relay, generation: 1, made: made, counter: 1))
      #expect(first.status == 201, "\(first.body)")
      // The same counter again (a replayed or cloned key): 401.
      let same = try await world.post(
        "/v1/delegations",
        try await world.delegationBody(handle: handle, relay: relay, generation: 2, made: made, counter: 1))
      #expect(same.status == 401)
      #expect(same.object?["error"]?.stringValue == "invalid_attestation")
      #expect(world.logs.contains { $0.contains("counter_not_increasing") }, "\(world.logs)")
      let next = try await world.post(
        "/v1/delegations",
        try await world.delegationBody(handle: handle, relay: relay, generation: 2, made: made, counter: 5))
      #expect(next.status == 201, "\(next.body)")
      let state = try await world.harness.store.attestation(
        handle: handle, owner: world.owner.publicKeyHex, now: world.harness.now)
      #expect(state?.counter == 5)
      // An assertion by another key: 401.
      let stranger = try await world.material.make(.init())
      let forged = try await world.post(
        "/v1/delegations",
        try await world.delegationBody(
          handle: handle, relay: relay, generation: 3, made: stranger, counter: 9))
      #expect(forged.status == 401)
      #expect(world.logs.contains { $0.contains("invalid_signature") }, "\(world.logs)")
      // A handle that is not the owner's: the route's own 404, with or without App Attest members.
      var unknown = try await world.delegationBody(
        handle: Hex.encode(SystemRandom.bytes(16)), relay: relay, generation: 1, made: nil, counter: 0)
      unknown["challenge_id"] = .string(Hex.encode(SystemRandom.bytes(16)))
      unknown["assertion"] = .string("AAAA")
      #expect(try await world.post("/v1/delegations", unknown).status == 404)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func twoConcurrentAssertionsWithTheSameCounterLetOneThrough() async throws {
    let world = try await World.start()
    do {
      let (handle, made) = try await world.attestedInstallation(token: testToken(20))
      let bodyA = try await world.delegationBody(
        handle: handle, relay: SecretKey.generate().publicKeyHex, generation: 1, made: made, counter: 1)
      let bodyB = try await world.delegationBody(
        handle: handle, relay: SecretKey.generate().publicKeyHex, generation: 1, made: made, counter: 1)
      async let a = world.post("/v1/delegations", bodyA)
      async let b = world.post("/v1/delegations", bodyB)
      let statuses = try await [a.status, b.status].sorted()
      #expect(statuses == [201, 401])
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func appAttestRoutesAndFieldsAreRefusedWhereTheAppDoesNotRequireIt() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let challenge = try await harness.post(
        "/v1/installations/challenges", #"{"v":1,"app_profile":"chat"}"#, key: owner)
      #expect(challenge.status == 400)
      let handle = try await harness.installation(owner, token: testToken(30))
      let withAssertion = try await harness.post(
        "/v1/installations/revoke",
        #"{"v":1,"installation_handle":"\#(handle)","challenge_id":"x","assertion":"AAAA"}"#,
        key: owner)
      #expect(withAssertion.status == 400)
      let plain = try await harness.post(
        "/v1/installations/revoke", #"{"v":1,"installation_handle":"\#(handle)"}"#, key: owner)
      #expect(plain.status == 200)
    }
  }
}

/// The store's App Attest contract on SQLite and, when configured, PostgreSQL: challenges (cap,
/// single use, owner and purpose), and the counter raised in the route's own transaction, with
/// two connections racing.
@Suite struct GatewayAppAttestStoreTests {
  typealias World = GatewayStoreWorld

  @Test(arguments: GatewayStoreBackend.available)
  func challengesAreCappedPerOwnerAndServeTheirOwnerAndPurposeOnce(_ backend: GatewayStoreBackend)
    async throws
  {
    let world = try World(backend)
    defer { world.remove() }
    var issued: [AppAttestChallenge] = []
    for _ in 0..<8 {
      let (challenge, result) = try await world.issue("installation:chat")
      #expect(result == .issued)
      issued.append(challenge)
    }
    #expect(try await world.issue("installation:chat").1 == .tooMany)
    // Another purpose gets nothing, and consumes the challenge.
    #expect(try await world.consume(issued[0], purpose: "installation:x") == nil)
    #expect(try await world.consume(issued[0]) == nil)
    #expect(try await world.consume(issued[1]) == issued[1].challenge)
    #expect(try await world.consume(issued[1]) == nil)
    #expect(try await world.consume(issued[2], at: issued[2].expiresAt) == nil)
    // Three consumed leave room for three more.
    for _ in 0..<3 { #expect(try await world.issue("installation:chat").1 == .issued) }
    #expect(try await world.issue("installation:chat").1 == .tooMany)
    // A delegation challenge for a handle that is not the owner's live installation: 404.
    #expect(try await world.issue("delegation:x", handle: Hex.encode(SystemRandom.bytes(16))).1 == .notFound)
  }

  @Test(arguments: GatewayStoreBackend.available)
  func concurrentDelegationsWithTheSameCounterStoreItOnce(_ backend: GatewayStoreBackend) async throws {
    let world = try World(backend)
    defer { world.remove() }
    let handle = Hex.encode(SystemRandom.bytes(16))
    var registration = InstallationRegistration(
      auth: world.auth(), owner: world.owner, appProfile: "chat",
      fingerprints: [Hex.encode(SystemRandom.bytes(32))],
      newHandle: handle, sealedToken: "sealed", tokenKid: "00000000", expiresAt: world.now + 86_400,
      now: world.now, maxPerOwner: 16)
    registration.attestedKey = AttestedKeyRecord(keyID: "00", publicKey: [4, 1], receipt: [9])
    #expect(
      try await world.store.register(registration)
        == .created(handle: handle, epoch: 1, expiresAt: world.now + 86_400))
    // A second connection on the same database, so the race is between two transactions.
    let other = try world.location.open()
    let results = try await withThrowingTaskGroup(of: DelegationResult.self) { group in
      // Four, two on each connection: fewer would not race twice, more only queue on the row lock.
      for index in 0..<4 {
        let store = index % 2 == 0 ? world.store : other
        group.addTask {
          var request = DelegationRequest(
            auth: world.auth(), owner: world.owner, handle: handle,
            relayPubkey: SecretKey.generate().publicKeyHex,
            generation: 1, expiresAt: world.now + 3600, newDelegationID: Hex.encode(SystemRandom.bytes(16)),
            now: world.now, maxPerInstallation: 32)
          request.assertedCounter = 3
          return try await store.delegate(request)
        }
      }
      return try await group.reduce(into: [DelegationResult]()) { $0.append($1) }
    }
    #expect(results.filter { $0 == .assertionReplayed }.count == 3)
    #expect(results.filter { if case .delegated = $0 { true } else { false } }.count == 1)
    let state = try await world.store.attestation(handle: handle, owner: world.owner, now: world.now)
    #expect(state == InstallationAttestation(appProfile: "chat", publicKey: [4, 1], counter: 3))
    // A lower or equal counter on another route is refused too; a higher one passes.
    var revoke = RevocationRequest(
      auth: world.auth(), owner: world.owner, handle: handle, relayPubkey: SecretKey.generate().publicKeyHex,
      now: world.now)
    revoke.assertedCounter = 2
    #expect(try await world.store.revoke(revoke) == .assertionReplayed)
    revoke.auth = world.auth()
    revoke.assertedCounter = 4
    #expect(try await world.store.revoke(revoke) == .revoked)
  }
}
extension GatewayStoreWorld {
  /// Issues a challenge for `purpose` (and `handle`) to the owner: the challenge and the store's answer.
  func issue(_ purpose: String, handle: String? = nil) async throws -> (
    AppAttestChallenge, ChallengeIssueResult
  ) {
    let challenge = AppAttestChallenge.issue(now: now)
    let result = try await store.issueChallenge(
      AttestChallengeIssue(
        auth: auth(), owner: owner, purpose: purpose, handle: handle, challenge: challenge, now: now,
        maxLive: AppAttestChallenge.maxLivePerOwner))
    return (challenge, result)
  }

  /// Consumes `challenge` as the owner for `purpose` at `time` (now unless given).
  func consume(
    _ challenge: AppAttestChallenge, purpose: String = "installation:chat", at time: Int64? = nil
  )
    async throws -> String?
  {
    try await store.consumeChallenge(id: challenge.id, owner: owner, purpose: purpose, now: time ?? now)
  }
}
#endif
