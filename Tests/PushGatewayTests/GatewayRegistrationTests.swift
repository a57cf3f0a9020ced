import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import Testing

@testable import PushGateway

@Suite struct GatewayRegistrationTests {
  @Test func createsAnInstallationAndGivesTheSameOwnerItBack() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let first = try await harness.register(owner, token: testToken(1))
      #expect(first.status == 201)
      let handle = try #require(first.object?["installation_handle"]?.stringValue)
      #expect(handle.utf8.count == 32)
      #expect(first.object?["endpoint_epoch"] == .integer(1))
      #expect(first.object?["expires_at"] == .integer(harness.now + 30 * 86_400))
      let again = try await harness.register(owner, token: testToken(1), lifetime: 60 * 86_400)
      #expect(again.status == 200)
      #expect(again.object?["installation_handle"]?.stringValue == handle)
      #expect(again.object?["expires_at"] == .integer(harness.now + 60 * 86_400))
    }
  }

  @Test func refusesAHeaderNotSignedForTheExactURL() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let body =
        #"{"v":1,"app_profile":"chat","endpoint":"\#(testToken(2))","expires_at":\#(harness.now + 86_400)}"#
      for signed in [
        harness.baseURL + "/v1/installations/", harness.baseURL.uppercased() + "/v1/installations",
        "https://push.example.org/v1/installations", harness.baseURL + "/v1/delegations",
      ] {
        let answer = try await harness.post("/v1/installations", body, key: owner, signedURL: signed)
        #expect(answer.status == 401, "\(signed)")
        #expect(answer.body == #"{"error":"invalid_auth"}"#)
      }
      #expect(try await harness.post("/v1/installations", body, key: owner).status == 201)
    }
  }

  @Test func refusesAHeaderWithoutAPayloadTagOrForAnotherBody() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let body =
        #"{"v":1,"app_profile":"chat","endpoint":"\#(testToken(3))","expires_at":\#(harness.now + 86_400)}"#
      let url = harness.baseURL + "/v1/installations"
      let noPayload = try NIP98.authEvent(url: url, method: "POST", body: nil, key: owner, now: harness.now)
      let header = "Nostr " + Data(noPayload.jsonBytes()).base64EncodedString()
      #expect(try await harness.post("/v1/installations", body, key: owner, header: header).status == 401)
      let otherBody = try NIP98.authorizationHeader(
        url: url, method: "POST", body: Array((body + " ").utf8), key: owner, now: harness.now)
      #expect(try await harness.post("/v1/installations", body, key: owner, header: otherBody).status == 401)
    }
  }

  @Test func burnsEachEventIDInTheStoreSoAReplayedHeaderIsRefused() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let body =
        #"{"v":1,"app_profile":"chat","endpoint":"\#(testToken(4))","expires_at":\#(harness.now + 86_400)}"#
      let event = try NIP98.authEvent(
        url: harness.baseURL + "/v1/installations", method: "POST", body: Array(body.utf8), key: owner,
        now: harness.now)
      let header = "Nostr " + Data(event.jsonBytes()).base64EncodedString()
      #expect(try await harness.post("/v1/installations", body, key: owner, header: header).status == 201)
      let replay = try await harness.post("/v1/installations", body, key: owner, header: header)
      #expect(replay.status == 401)
      #expect(replay.body == #"{"error":"invalid_auth"}"#)
      // Another process on the same store sees the burn (it is a row, not process memory).
      let replica = try SQLitePushGatewayStore(path: harness.storePath)
      let seen = try await replica.revoke(
        RevocationRequest(
          auth: AuthBurn(id: event.id, expiresAt: harness.now + 120), owner: owner.publicKeyHex,
          handle: String(repeating: "0", count: 32), relayPubkey: nil, now: harness.now))
      #expect(seen == .authReplayed)
      // Past the window the id may go; the header is refused as expired anyway.
      harness.clock.advance(by: .seconds(121))
      #expect(try await harness.post("/v1/installations", body, key: owner, header: header).status == 401)
      #expect(try await replica.reap(now: harness.now) >= 1)
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func answersNotFoundAlikeForAnotherOwnersHandleAndAnUnknownOne(_ backend: GatewayStoreBackend) async throws
  {
    try await withGatewayHarness(backend: backend) { harness in
      let owner = SecretKey.generate()
      let stranger = SecretKey.generate()
      let handle = try await harness.installation(owner, token: testToken(5))
      let unknown = String(repeating: "ab", count: 16)
      let relay = SecretKey.generate().publicKeyHex
      for target in [handle, unknown] {
        let bodies: [(String, String)] = [
          (
            "/v1/installations/endpoint",
            #"{"v":1,"installation_handle":"\#(target)","endpoint":"\#(testToken(6))"}"#
          ),
          (
            "/v1/delegations",
            #"{"v":1,"installation_handle":"\#(target)","relay_pubkey":"\#(relay)","generation":1,"expires_at":\#(harness.now + 3600)}"#
          ),
          (
            "/v1/delegations/revoke",
            #"{"v":1,"installation_handle":"\#(target)","relay_pubkey":"\#(relay)"}"#
          ),
          ("/v1/installations/revoke", #"{"v":1,"installation_handle":"\#(target)"}"#),
        ]
        for (path, body) in bodies {
          let answer = try await harness.post(path, body, key: stranger)
          #expect(answer.status == 404, "\(path)")
          #expect(answer.body == #"{"error":"not_found"}"#, "\(path)")
        }
      }
      // The owner's installation is untouched.
      let delegated = try await harness.delegate(owner, handle: handle, relay: relay)
      #expect(delegated.status == 201)
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func answersConflictWhileAnotherOwnerHoldsTheToken(_ backend: GatewayStoreBackend) async throws {
    try await withGatewayHarness(backend: backend) { harness in
      let first = SecretKey.generate()
      let second = SecretKey.generate()
      let handle = try await harness.installation(first, token: testToken(7))
      let conflict = try await harness.register(second, token: testToken(7))
      #expect(conflict.status == 409)
      #expect(conflict.body == #"{"error":"installation_conflict"}"#)
      // Rotating another installation onto that token conflicts too.
      let other = try await harness.installation(second, token: testToken(8))
      let rotate = try await harness.post(
        "/v1/installations/endpoint",
        #"{"v":1,"installation_handle":"\#(other)","endpoint":"\#(testToken(7))"}"#,
        key: second)
      #expect(rotate.status == 409)
      let revoked = try await harness.post(
        "/v1/installations/revoke", #"{"v":1,"installation_handle":"\#(handle)"}"#, key: first)
      #expect(revoked.status == 200)
      #expect(revoked.body == #"{"status":"revoked"}"#)
      #expect(try await harness.register(second, token: testToken(7)).status == 201)
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func capsLiveInstallationsPerOwner(_ backend: GatewayStoreBackend) async throws {
    try await withGatewayHarness(backend: backend) { harness in
      let owner = SecretKey.generate()
      var handles: [String] = []
      for index in 0..<PushGateway.maxInstallationsPerOwner {
        handles.append(try await harness.installation(owner, token: testToken(100 + index)))
      }
      let over = try await harness.register(owner, token: testToken(200))
      #expect(over.status == 429)
      #expect(over.body == #"{"error":"too_many_installations"}"#)
      _ = try await harness.post(
        "/v1/installations/revoke", #"{"v":1,"installation_handle":"\#(handles[0])"}"#, key: owner)
      #expect(try await harness.register(owner, token: testToken(200)).status == 201)
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func refusesALowerGenerationAndADelegationOutlivingItsInstallation(_ backend: GatewayStoreBackend)
    async throws
  {
    try await withGatewayHarness(backend: backend) { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate().publicKeyHex
      let handle = try await harness.installation(owner, token: testToken(9))
      #expect(try await harness.delegate(owner, handle: handle, relay: relay, generation: 3).status == 201)
      let stale = try await harness.delegate(owner, handle: handle, relay: relay, generation: 2)
      #expect(stale.status == 409)
      #expect(stale.body == #"{"error":"stale_generation"}"#)
      #expect(try await harness.delegate(owner, handle: handle, relay: relay, generation: 3).status == 201)
      #expect(try await harness.delegate(owner, handle: handle, relay: relay, generation: 4).status == 201)
      // The installation lives 30 days; a 31-day delegation would outlive it.
      let long = try await harness.delegate(
        owner, handle: handle, relay: relay, generation: 5, lifetime: 31 * 86_400)
      #expect(long.status == 400)
      #expect(
        try await harness.delegate(owner, handle: handle, relay: relay, generation: 5, lifetime: 32 * 86_400)
          .status == 400)
    }
  }

  @Test(arguments: [
    #"{"v":1, "app_profile":"chat","endpoint":"TOKEN","expires_at":EXP}"#,
    #"{"v":1,"app_profile":"chat","endpoint":"TOKEN","expires_at":EXP,"extra":1}"#,
    #"{"v":2,"app_profile":"chat","endpoint":"TOKEN","expires_at":EXP}"#,
    #"{"v":1,"app_profile":"mail","endpoint":"TOKEN","expires_at":EXP}"#,
    #"{"v":1,"app_profile":"chat","endpoint":"abc","expires_at":EXP}"#,
    #"{"v":1,"app_profile":"chat","endpoint":"TOKEN","expires_at":"EXP"}"#,
    #"{"v":1,"app_profile":"chat","endpoint":"TOKEN","expires_at":FAR}"#,
    #"{"v":1,"app_profile":"chat","endpoint":"TOKEN"}"#,
  ])
  func refusesABodyThatIsNotTheStrictCompactForm(_ template: String) async throws {
    try await withGatewayHarness { harness in
      let body = template.replacingOccurrences(of: "TOKEN", with: testToken(10))
        .replacingOccurrences(of: "EXP", with: String(harness.now + 86_400))
        .replacingOccurrences(of: "FAR", with: String(harness.now + 91 * 86_400))
      let answer = try await harness.post("/v1/installations", body, key: SecretKey.generate())
      #expect(answer.status == 400)
      #expect(answer.body == #"{"error":"invalid_request"}"#)
    }
  }

  @Test func answers413ToABodyOver8192Bytes() async throws {
    try await withGatewayHarness { harness in
      let body = #"{"v":1,"pad":""# + String(repeating: "a", count: 8200) + #""}"#
      let answer = try await harness.post("/v1/installations", body, key: SecretKey.generate())
      #expect(answer.status == 413)
    }
  }

  @Test func refusesOwnersOutsideTheAllowlist() async throws {
    let allowed = SecretKey.generate()
    try await withGatewayHarness(owners: [allowed.publicKeyHex]) { harness in
      let answer = try await harness.register(SecretKey.generate(), token: testToken(11))
      #expect(answer.status == 403)
      #expect(answer.body == #"{"error":"owner_not_allowed"}"#)
      #expect(try await harness.register(allowed, token: testToken(11)).status == 201)
    }
  }
}
