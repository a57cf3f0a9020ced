import Foundation
import NIP44
import NostrEvent
import NostrJSON
import NostrPushCore
import Testing

@testable import PushGateway

@Suite struct GatewayGrantTests {
  @Test func sealsAGrantThatHoldsNoTokenBytes() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let token = testToken(500)
      let (grant, _) = try await harness.grant(owner: owner, relay: relay, token: token)
      let parts = grant.split(separator: ".", omittingEmptySubsequences: false)
      #expect(parts.count == 3)
      #expect(parts[0] == "g1")
      #expect(parts[1] == Substring(harness.keys.current.kid))
      let plain = try NIP44.decrypt(String(parts[2]), conversationKey: harness.keys.current.grant)
      let object = try #require(try JSONReader().read(plain).objectValue)
      #expect(
        object.keys == [
          "v", "delegation_id", "relay_pubkey", "app_profile", "endpoint_epoch", "generation", "expires_at",
        ])
      #expect(object["relay_pubkey"] == .string(relay.publicKeyHex))
      #expect(object["app_profile"] == .string("chat"))
      #expect(!plain.contains(token))
      #expect(!plain.contains(String(token.prefix(16))))
    }
  }

  @Test func refusesATamperedGrantAndOneOfAnUnknownKey() async throws {
    try await withGatewayHarness { harness in
      let relay = SecretKey.generate()
      let (grant, _) = try await harness.grant(
        owner: SecretKey.generate(), relay: relay, token: testToken(501))
      var bytes = Array(grant.utf8)
      let index = bytes.count - 20
      bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
      let tampered = String(decoding: bytes, as: UTF8.self)
      let unknownKid = "g1.00000000." + grant.split(separator: ".")[2]
      for candidate in [tampered, unknownKid, "g2" + grant.dropFirst(2), grant + "x"] {
        let answer = try await harness.deliver(candidate, relay: relay)
        #expect(answer.status == 404)
        #expect(answer.body == #"{"error":"invalid_grant"}"#)
      }
      #expect(harness.recording.requests.isEmpty)
      #expect(try await harness.deliver(grant, relay: relay).status == 200)
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func killsOldGrantsOnRevocation(_ backend: GatewayStoreBackend) async throws {
    try await withGatewayHarness(backend: backend) { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let (grant, handle) = try await harness.grant(owner: owner, relay: relay, token: testToken(502))
      let second = SecretKey.generate()
      let other = try #require(
        try await harness.delegate(owner, handle: handle, relay: second.publicKeyHex).object?[
          "endpoint_grant"]?
          .stringValue)
      // A re-delegation replaces the grant: the old one dies.
      let replaced = try #require(
        try await harness.delegate(owner, handle: handle, relay: relay.publicKeyHex).object?[
          "endpoint_grant"]?
          .stringValue)
      #expect(try await harness.deliver(grant, relay: relay).status == 404)
      #expect(try await harness.deliver(replaced, relay: relay).status == 200)
      let revoked = try await harness.post(
        "/v1/delegations/revoke",
        #"{"v":1,"installation_handle":"\#(handle)","relay_pubkey":"\#(relay.publicKeyHex)"}"#, key: owner)
      #expect(revoked.body == #"{"status":"revoked"}"#)
      #expect(try await harness.deliver(replaced, relay: relay).status == 404)
      #expect(try await harness.deliver(other, relay: second).status == 200)
      _ = try await harness.post(
        "/v1/installations/revoke", #"{"v":1,"installation_handle":"\#(handle)"}"#, key: owner)
      #expect(try await harness.deliver(other, relay: second).status == 404)
      #expect(harness.recording.requests.count == 2)
    }
  }

  @Test func opensGrantsOfAPreviousKeyFileButSealsOnlyWithTheCurrentOne() async throws {
    let old = try PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText())
    let first = try await GatewayHarness.start(keys: PushGatewayKeys(current: old))
    let relay = SecretKey.generate()
    let owner = SecretKey.generate()
    let token = testToken(503)
    let (grant, handle) = try await first.grant(owner: owner, relay: relay, token: token)
    await first.stop()
    let new = try PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText())
    let second = try await GatewayHarness.start(
      keys: PushGatewayKeys(current: new, previous: [old]), directory: first.directory, clock: first.clock)
    do {
      // The old grant opens, and the token sealed under the old key opens too.
      #expect(try await second.deliver(grant, relay: relay).status == 200)
      #expect(second.recording.requests.map(\.deviceToken) == [token])
      let fresh = try #require(
        try await second.delegate(owner, handle: handle, relay: relay.publicKeyHex).object?["endpoint_grant"]?
          .stringValue)
      #expect(fresh.hasPrefix("g1." + new.kid + "."))
      // Without the old key file, the old grant no longer opens.
      await second.stop()
      let third = try await GatewayHarness.start(
        keys: PushGatewayKeys(current: new), directory: first.directory, clock: first.clock)
      let refused = try await third.deliver(fresh, relay: relay)
      // The fresh grant opens, but the token is still sealed under the old key: a configuration
      // fault, never sent.
      #expect(refused.status == 503)
      #expect(refused.body == #"{"error":"configuration_fault"}"#)
      #expect(try await third.deliver(grant, relay: relay).status == 404)
      #expect(third.recording.requests.isEmpty)
      await third.stop()
    } catch {
      await second.stop()
      first.remove()
      throw error
    }
    first.remove()
  }
}
