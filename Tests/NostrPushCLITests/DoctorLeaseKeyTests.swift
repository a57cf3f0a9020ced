import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `nostr-push doctor` against the push relay service when the account's lease is sealed to a
/// push key that is no longer current (the service rotated its keys): only the lease gate fails,
/// and it says to enroll again.
@Suite struct DoctorLeaseKeyTests {
  /// The previous push key (a test key, never used anywhere real).
  static let oldPushKey = "5c0ad2a0e1b3d84f6e7a9c1b2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f6"

  @Test func aLeaseSealedToARetiringKeyFailsOnlyTheLeaseGate() async throws {
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      try await withRelay { upstream in
        let upstreamURL =
          "ws" + RelayServiceCommandTests.base(try #require(upstream.baseURL)).dropFirst("http".count)
        let gatewayBase = RelayServiceCommandTests.base(try #require(gateway.baseURL))
        let (folder, config) = try RelayServiceCommandTests.folder(
          upstream: upstreamURL, gateway: gatewayBase)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The service serves a current key and the previous one, retiring.
        FileManager.default.createFile(
          atPath: folder + "/old.key", contents: Data(Self.oldPushKey.utf8),
          attributes: [.posixPermissions: 0o600])
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try Data(
          text.replacingOccurrences(
            of: #""push_key_files":["push.key"]"#, with: #""push_key_files":["push.key","old.key"]"#
          )
          .utf8
        ).write(to: URL(fileURLWithPath: config))
        let (process, line) = try #require(
          try await NostrPushBinary.startServer(["relay", "--config", config]))
        let listening = try #require(try JSONReader().read(line).objectValue?["listening"]?.stringValue)
        let relay = "ws://\(listening)"
        let accountKey = folder + "/account.key"
        FileManager.default.createFile(
          atPath: accountKey, contents: Data(Self.accountHex.utf8),
          attributes: [.posixPermissions: 0o600])
        // A lease sealed to the retiring key, as an app that read the document before the rotation.
        let document = try await LoopbackFetch.send(
          "http://\(listening)/", headers: ["Accept": "application/nostr+json"])
        var root = try #require(try JSONReader().read(document.body).objectValue)
        var push = try #require(root["push"]?.objectValue)
        let old = try SecretKey(hex: Self.oldPushKey)
        let keys = try #require(push["keys"]?.arrayValue).compactMap(\.objectValue).map {
          entry -> JSONValue in
          let isOld = entry["pubkey"]?.stringValue == old.publicKeyHex
          var swapped = JSONObject([
            "id": entry["id"] ?? .null, "pubkey": entry["pubkey"] ?? .null, "current": .bool(isOld),
          ])
          if !isOld { swapped["retiring"] = .bool(true) }
          return .object(swapped)
        }
        push["keys"] = .array(keys)
        root["push"] = .object(push)
        let before = try RelayDocument(bytes: JSONWriter.bytes(.object(root))).push
        let oldID = try #require(before.currentKey?.id)
        let now = Int64(Date().timeIntervalSince1970)
        let grant = try gateway.issueGrant(relayPubkey: old.publicKeyHex, deviceToken: "aabbcc")
        let lease = try LeaseBuilder(
          descriptor: before, appProfile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
        ).active(
          endpoint: grant.grant,
          subscriptions: [
            try LeaseSubscription(
              filter: LeaseFilter(
                kinds: [1], pTags: [RelayServiceCommandTests.account.publicKeyHex], descriptor: before),
              class: "default")
          ], generation: 1, createdAt: now, installationID: InstallationID.generate(), now: now,
          signer: RelayServiceCommandTests.account)
        let client = try await RelayConnection.connect(
          to: relay, key: RelayServiceCommandTests.account, deadline: .now + .seconds(5))
        let enrolled = try await client.publish(lease, deadline: .now + .seconds(5))
        await client.close()
        #expect(enrolled.accepted, "\(enrolled.message)")
        let run = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--gateway", gatewayBase,
        ])
        #expect(run.status == 1)
        let failing = run.stdout.split(separator: "\n").filter { $0.hasPrefix("✗ ") }
        #expect(failing.count == 1, "\(run.stdout)")
        #expect(
          failing.first?.hasPrefix("✗ lease: ") == true
            && failing.first?.contains("sealed to key \(oldID)") == true,
          "\(run.stdout)")
        process.send(SIGTERM)
        _ = await process.exited()
      }
    }
  }

  /// The account key `RelayServiceCommandTests.account` holds, as its key file says it.
  static let accountHex = "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b"
}
