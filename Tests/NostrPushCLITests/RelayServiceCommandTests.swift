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

/// `nostr-push relay --config FILE` as a process: its first line, a configuration error named by
/// field, and a SIGKILL in the middle of ingest that loses nothing and delivers nothing twice.
@Suite struct RelayServiceCommandTests {
  static let serviceKey = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a7988"
  static let pushKey = "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098"
  static let account = try! SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
  static let alice = try! SecretKey(hex: "ffa7a0616ec26dabc85b5a17b7cb452764b2dc66b40334559fe04ad7d29da7c2")

  /// A folder with the key files (0600) and a configuration following `upstream` (none when nil),
  /// on `store` (a SQLite file in the folder unless given), with the trusted `feeds` given.
  static func folder(
    upstream: String?, gateway: String, store: String = #"{"sqlite":"state.sqlite"}"#,
    feeds: String = #"{"http":true}"#
  ) throws
    -> (path: String, config: String)
  {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "relay-service-\(UUID().uuidString)"
    )
    .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for (name, text) in [("service.key", serviceKey), ("push.key", pushKey)] {
      FileManager.default.createFile(
        atPath: folder + "/" + name, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    }
    let config = """
      {"public_url":"wss://push.example.org","listen":"127.0.0.1:0","admin_listen":"127.0.0.1:0",
       "service_key_file":"service.key","push_key_files":["push.key"],
       "descriptor":{"app_profiles":[{"id":"org.nostrpushkit.demo","transport":"apns"}],
         "push_kinds":[1,9,40002,45001,45003,1059],"urgent_kinds":[],"h_grammar":"uuid-v4-lowercase",
         "class_support":{"apns":["silent","default","time_sensitive"]},
         "limitation":{"max_lease_ttl":2592000,"max_leases_per_pubkey":8,"max_subscriptions_per_lease":4,
           "max_kinds":8,"max_authors":64,"max_h":32,"max_tag_values":64,"max_ignore":256,
           "max_content_len":65536,"max_plaintext_len":4096,"max_endpoint_len":512,"max_string_len":256}},
       "store":\(store),"gateway":"\(gateway)","upstreams":[\(upstream.map { #"{"url":"\#($0)"}"# } ?? "")],
       "feeds":\(feeds)}
      """
    FileManager.default.createFile(atPath: folder + "/config.json", contents: Data(config.utf8))
    return (folder, folder + "/config.json")
  }

  /// Enrolls, over NIP-42 as the account, a lease for kind 1 mentions of the account at the
  /// service listening on `listening` (`HOST:PORT`), to a fresh grant of `gateway`; the relay's OK.
  static func enrollMentionLease(at listening: String, gateway: GatewayFixture) async throws -> PublishResult
  {
    try await enrollMentionLeaseEvent(at: listening, gateway: gateway).result
  }

  /// As ``enrollMentionLease(at:gateway:)``, with the lease event published.
  static func enrollMentionLeaseEvent(at listening: String, gateway: GatewayFixture) async throws -> (
    result: PublishResult, lease: Event
  ) {
    let document = try await LoopbackFetch.send(
      "http://\(listening)/", headers: ["Accept": "application/nostr+json"])
    let descriptor = try RelayDocument(bytes: document.body).push
    let now = Int64(Date().timeIntervalSince1970)
    let grant = try gateway.issueGrant(
      relayPubkey: (try SecretKey(hex: Self.pushKey)).publicKeyHex, deviceToken: "aabbcc")
    let lease = try LeaseBuilder(
      descriptor: descriptor, appProfile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
    ).active(
      endpoint: grant.grant,
      subscriptions: [
        try LeaseSubscription(
          filter: LeaseFilter(kinds: [1], pTags: [Self.account.publicKeyHex], descriptor: descriptor),
          class: "default")
      ], generation: 1, createdAt: now, installationID: InstallationID.generate(), now: now,
      signer: Self.account)
    let client = try await RelayConnection.connect(
      to: "ws://\(listening)", key: Self.account, deadline: .now + .seconds(5))
    do {
      let answer = try await client.publish(lease, deadline: .now + .seconds(5))
      await client.close()
      return (answer, lease)
    } catch {
      await client.close()
      throw error
    }
  }

  static func base(_ url: URL) -> String {
    let text = url.absoluteString
    return text.hasSuffix("/") ? String(text.dropLast()) : text
  }

  @Test func aConfigurationErrorNamesItsFieldAndExits1() async throws {
    let (folder, config) = try Self.folder(upstream: "http://not-a-relay", gateway: "http://127.0.0.1:1")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let run = try await NostrPushBinary.run(["relay", "--config", config])
    #expect(run.status == 1)
    #expect(run.stderr.contains("invalid_configuration (upstreams[0].url)"), "\(run.stderr)")
  }

  @Test func aSigkillMidIngestLosesNothingAndDeliversNothingTwice() async throws {
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      try await withRelay { upstream in
        let upstreamURL = try #require(upstream.relayOrigin).webSocketURL
        let (folder, config) = try Self.folder(
          upstream: upstreamURL, gateway: Self.base(try #require(gateway.baseURL)))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var (process, line) = try #require(
          try await NostrPushBinary.startServer(["relay", "--config", config]))
        let first = try #require(try JSONReader().read(line).objectValue)
        #expect(first["pubkey"]?.stringValue == (try SecretKey(hex: Self.serviceKey)).publicKeyHex)
        let listening = try #require(first["listening"]?.stringValue)
        let admin = try #require(first["admin"]?.stringValue)
        // Enroll a lease for mentions of the account.
        #expect(try await Self.enrollMentionLease(at: listening, gateway: gateway).accepted)
        let subscribed = await Polling.eventuallyAwaiting(within: .seconds(10), every: .milliseconds(50)) {
          let metrics = try? await LoopbackFetch.send("http://\(admin)/metrics")
          return String(decoding: metrics?.body ?? [], as: UTF8.self)
            .contains("nostr_push_upstream_subscriptions{upstream=\"0\"} 1")
        }
        #expect(subscribed)
        // Publish 300 mentions upstream; SIGKILL the service after the first 100.
        let publisher = try await RelayConnection.connect(to: upstreamURL, deadline: .now + .seconds(5))
        for index in 0..<300 {
          let event = try UnsignedEvent(
            pubkey: Self.alice.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970), kind: 1,
            tags: [["p", Self.account.publicKeyHex]], content: "mention \(index)"
          ).signed(with: Self.alice)
          #expect(try await publisher.publish(event, deadline: .now + .seconds(5)).accepted)
          if index == 99 {
            process.send(SIGKILL)
            let killed = await process.exited()
            #expect(killed.killedBySignal)
          }
        }
        await publisher.close()
        (process, line) = try #require(try await NostrPushBinary.startServer(["relay", "--config", config]))
        let restarted = try #require(try JSONReader().read(line).objectValue)
        let restartedAdmin = try #require(restarted["admin"]?.stringValue)
        let delivered = await Polling.eventually(within: .seconds(60)) { gateway.deliveries().count >= 300 }
        if !delivered {
          let metrics = try? await LoopbackFetch.send("http://\(restartedAdmin)/metrics")
          Issue.record("not all delivered; metrics: \(String(decoding: metrics?.body ?? [], as: UTF8.self))")
        }
        let deliveries = gateway.deliveries()
        #expect(deliveries.count == 300)
        #expect(Set(deliveries.map(\.requestID)).count == 300)
        process.send(SIGTERM)
        let exit = await process.exited()
        #expect(exit.status == 0 && !exit.killedBySignal, "\(exit.stderrText)")
      }
    }
  }

  @Test func doctorPassesEveryGateOfAHealthySetupAndNamesTheBrokenOne() async throws {
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      try await withRelay { upstream in
        let upstreamURL = try #require(upstream.relayOrigin).webSocketURL
        let gatewayBase = Self.base(try #require(gateway.baseURL))
        let (folder, config) = try Self.folder(upstream: upstreamURL, gateway: gatewayBase)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (process, line) = try #require(
          try await NostrPushBinary.startServer(["relay", "--config", config]))
        let listening = try #require(try JSONReader().read(line).objectValue?["listening"]?.stringValue)
        let relay = "ws://\(listening)"
        let accountKey = folder + "/account.key"
        FileManager.default.createFile(
          atPath: accountKey,
          contents: Data("42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b".utf8),
          attributes: [.posixPermissions: 0o600])
        // Before enrolling, the lease gate fails and names itself.
        let before = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey,
        ])
        #expect(before.status == 1)
        #expect(before.stdout.contains("✗ lease: no kind 30350 lease"), "\(before.stdout)")
        #expect(before.stdout.contains("✓ NIP-42"), "\(before.stdout)")
        // Enroll, then every gate passes.
        #expect(try await Self.enrollMentionLease(at: listening, gateway: gateway).accepted)
        let healthy = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--gateway", gatewayBase,
        ])
        #expect(healthy.status == 0, "\(healthy.stdout)\(healthy.stderr)")
        let lines = healthy.stdout.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { $0.hasPrefix("✓ ") }, "\(healthy.stdout)")
        // The lease is read back by opening it: its sealed generation (1, as enrolled) is shown.
        #expect(
          lines.contains { $0.hasPrefix("✓ lease: d=") && $0.contains(", generation 1, expires ") },
          "\(healthy.stdout)")
        // The gateway unreachable (nothing listens on port 1): only its gate fails, named.
        let noGateway = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey, "--gateway", "http://127.0.0.1:1",
        ])
        #expect(noGateway.status == 1)
        let failing = noGateway.stdout.split(separator: "\n").filter { $0.hasPrefix("✗ ") }
        #expect(failing.count == 1 && failing[0].hasPrefix("✗ gateway: "), "\(noGateway.stdout)")
        process.send(SIGTERM)
        _ = await process.exited()
        // The relay gone: the NIP-11 gate fails first, and what depends on it is not checked.
        let down = try await NostrPushBinary.run([
          "doctor", "--relay", relay, "--secret-key-file", accountKey,
        ])
        #expect(down.status == 1)
        #expect(down.stdout.hasPrefix("✗ NIP-11: "), "\(down.stdout)")
        #expect(down.stdout.contains("✗ push key: not checked"), "\(down.stdout)")
      }
    }
  }
}
