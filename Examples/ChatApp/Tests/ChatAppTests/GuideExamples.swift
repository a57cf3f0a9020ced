import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import PushDescriptor
import Testing

/// The compiled examples of the guides in `Docs/`, checked against them by `DocumentationDriftTests`
/// like the README's.
@Suite(.timeLimit(.minutes(2))) struct GuideExamples {
  @Test func buildsAndServesARelayDocument() throws {
    // README example: begin
    let relayKey = "11709e7cba279867eb5e29c188f3e74c003adea8f909b6a5520ae739251d44f5"
    let push = PushDescriptor(
      origin: "wss://relay.example",
      keys: [PushKey(id: "2026-01", pubkey: relayKey, current: true)],
      appProfiles: [PushAppProfile(id: "com.example.chat", transport: "apns")],
      pushKinds: PushDescriptor.requiredPushKinds,
      urgentKinds: [],
      classSupport: PushClassSupport(apns: [.silent, .default, .timeSensitive]),
      limitation: PushLimitation(
        maxLeaseTTL: 2_592_000, maxLeasesPerPubkey: 8, maxSubscriptionsPerLease: 4, maxKinds: 8,
        maxAuthors: 64, maxH: 32, maxTagValues: 64, maxIgnore: 256, maxContentLen: 65_536,
        maxPlaintextLen: 4096, maxEndpointLen: 512, maxStringLen: 256))
    let information = RelayInformation(
      lenient: JSONObject([
        "name": .string("relay.example"),
        "self": .string(relayKey),
        "supported_nips": .array([.integer(1), .integer(11), .integer(29), .integer(98)]),
      ]))
    let document = RelayDocument(information: information, push: push)
    let body = document.jsonBytes()  // serve at GET / with Accept: application/nostr+json

    // Before serving, read it back the way every client will, strictly:
    let check = try RelayDocument(bytes: body)
    // check.push == push; supported_extensions now lists "nip-pl"
    // README example: end
    #expect(check.push == push)
    #expect(check.information.selfPubkey == relayKey)
    #expect(check.information[member: "supported_extensions"] == .array([.string("nip-pl")]))
    #expect(String(decoding: body, as: UTF8.self).hasPrefix(#"{"name":"relay.example","self":"#))
  }

  @Test func authenticatesRelayRequestsWithNIP98() throws {
    let client = SecretKey.generate()
    let requestBody = Array(##"[{"kinds":[9],"#p":["\##(client.publicKeyHex)"]}]"##.utf8)
    let requestHeader = try NIP98.authorizationHeader(
      url: "https://relay.example/query", method: "POST", body: requestBody, key: client, now: 1_767_225_600)
    // README example: begin
    // One verifier for the whole server: it remembers accepted event ids to refuse replays.
    let verifier = NIP98Verifier(window: 60, replayCapacity: 10_000)

    // `publicURL` is the URL the client signed: the relay's public origin plus the path, not the
    // address the server listens on behind a proxy.
    func authorizedFilters(
      header: String?, publicURL: String, body: [UInt8], now: Int64
    ) -> (status: Int, pubkey: String?, filters: [Filter]) {
      let auth: Event
      do {
        auth = try verifier.verify(header: header, url: publicURL, method: "POST", body: body, now: now)
      } catch {
        // .unavailable: the replay set is full of live ids (503, try again); else 401 with the code:
        // .expired, .urlMismatch, .payloadMismatch, .replayed, …
        return (error.code == .unavailable ? 503 : 401, nil, [])
      }
      guard let array = try? JSONReader(maxBytes: 1 << 20).read(body).arrayValue,
        let filters = try? array.map({ value throws(EventError) in try Filter(jsonValue: value) })
      else { return (400, auth.pubkey, []) }
      return (200, auth.pubkey, filters)  // answer events where filters.contains { $0.matches(event) }
    }
    // README example: end
    let accepted = authorizedFilters(
      header: requestHeader, publicURL: "https://relay.example/query", body: requestBody, now: 1_767_225_610)
    let replayed = authorizedFilters(
      header: requestHeader, publicURL: "https://relay.example/query", body: requestBody, now: 1_767_225_611)
    let missing = authorizedFilters(
      header: nil, publicURL: "https://relay.example/query", body: requestBody, now: 1_767_225_611)
    #expect(accepted.status == 200)
    #expect(accepted.pubkey == client.publicKeyHex)
    #expect(accepted.filters == [Filter(kinds: [9], tags: ["p": [client.publicKeyHex]])])
    #expect(replayed.status == 401)
    #expect(missing.status == 401)
  }

  @Test func importsWhatTheAppAlreadyHas() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("cache.sqlite").path
    let account = SecretKey.generate().publicKeyHex
    let alice = SecretKey.generate()
    let profileEvents = [
      try UnsignedEvent(
        pubkey: alice.publicKeyHex, createdAt: 1_767_225_000, kind: 0, tags: [],
        content: #"{"display_name":"Alice Martin"}"#
      ).signed(with: alice)
    ]
    // README example: begin
    // In the app: one cache and one importer for the process, kept for its lifetime.
    let cache = try EnrichmentCache(path: path)  // path in the App Group container
    let importer = CacheImporter(cache: cache)

    // After the app received profiles (kind 0) over its own connection:
    let ticket = try importer.enqueue(
      ImportBatch(account: account, relay: try RelayOrigin("wss://relay.example"), profiles: profileEvents))
    // enqueue returned at once; verification and writes happen on the importer's worker.

    // Only tests and diagnostics wait:
    let result = try await importer.wait(for: ticket, timeout: .seconds(5))
    // result.written == 1, result.rejected == 0
    // README example: end
    #expect(result.written == 1)
    #expect(result.rejected == 0)
    let stored = try cache.lookupProfile(
      account: account, relay: try RelayOrigin("https://relay.example"), pubkey: alice.publicKeyHex,
      now: 1_767_225_600)
    #expect(stored?.value.displayName == "Alice Martin")
  }

  @Test func removesAnAccountAndKeepsItRemoved() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try EnrichmentCache(path: folder.appendingPathComponent("cache.sqlite").path)
    let account = SecretKey.generate().publicKeyHex
    let relay = try RelayOrigin("wss://relay.example")
    let now: Int64 = 1_767_225_600
    let alice = SecretKey.generate()
    let profile = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 60, kind: 0, tags: [], content: #"{"name":"alice"}"#
    ).signed(with: alice)
    try cache.registerAccount(account, now: now)
    try cache.storeProfile(event: profile, account: account, relay: relay, now: now)
    // README example: begin
    // Sign-out: one transaction deletes every row of the account and leaves a tombstone.
    let deleted = try cache.removeAccount(account, now: now)  // rows deleted (here: 1 profile)

    // A wake or an import still in flight for that account changes nothing now:
    let late = try cache.storeProfile(event: profile, account: account, relay: relay, now: now + 1)
    // late == .discardedAccountRemoved
    let registered = try cache.registerAccount(account, now: now + 2)  // false: wakes do not revive it

    // Signing in again is explicit:
    try cache.addAccount(account, now: now + 3)
    // README example: end
    #expect(deleted == 1)
    #expect(late == .discardedAccountRemoved)
    #expect(registered == false)
    #expect(try cache.isAccountRemoved(account) == false)
    #expect(try cache.storeProfile(event: profile, account: account, relay: relay, now: now + 4) == .stored)
  }

  @Test func injectsAFaultIntoTheFixtureRelay() async throws {
    let now: Int64 = 1_767_225_600
    let account = SecretKey.generate()
    let alice = SecretKey.generate()
    let message = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 10, kind: 9, tags: [["p", account.publicKeyHex]],
      content: "hello"
    ).signed(with: alice)
    // README example: begin
    let server = RelayFixtureServer(
      data: RelayFixtureData(events: [message]), configuration: RelayFixtureConfiguration(now: now))
    let origin = try await server.start()
    // The next /query asking for kind 9 is answered 503; later ones are served normally.
    server.setFaults([RelayFault(path: "/query", kind: 9, action: .status(503), times: 1)])

    let first = try await FixtureQuery.post(origin, #"[{"kinds":[9]}]"#, key: account, now: now)
    let second = try await FixtureQuery.post(origin, #"[{"kinds":[9]}]"#, key: account, now: now)
    await server.stop()
    // first.status == 503, second.status == 200
    // server.requestCount(path: "/query", kind: 9) == 2
    // README example: end
    #expect(first.status == 503)
    #expect(second.status == 200)
    #expect(try JSONReader().read(second.body).arrayValue?.count == 1)
    #expect(server.requestCount(path: "/query", kind: 9) == 2)
    #expect(server.requests().map(\.fault) == ["status", nil])
  }
}
