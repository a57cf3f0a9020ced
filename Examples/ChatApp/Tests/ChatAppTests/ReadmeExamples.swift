import Bech32
import EnrichmentCache
import Foundation
import NIP44
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import NostrPushTesting
import NostrWebSocket
import NotificationResolver
import PushDescriptor
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The README's examples, one per module, compiled and run.
///
/// The code between `README example: begin` and `README example: end` is the README's ```swift
/// block, character for character (`DocumentationDriftTests` checks it); the lines after it assert what
/// the README's comments promise.
@Suite(.timeLimit(.minutes(2))) struct ReadmeExamples {
  @Test func canonicalisesARelayOrigin() throws {
    // README example: begin
    let origin = try RelayOrigin("WSS://Relay.Example:443/")
    // origin.description == "https://relay.example", origin.webSocketURL == "wss://relay.example"
    // RelayOrigin("wss://relay.example/chat") throws RelayOriginError: code .invalidField, field "relay"
    // README example: end
    var refusal: RelayOriginError?
    do throws(RelayOriginError) {
      _ = try RelayOrigin("wss://relay.example/chat")
    } catch {
      refusal = error
    }
    #expect(origin.description == "https://relay.example")
    #expect(origin.webSocketURL == "wss://relay.example")
    #expect(origin == (try RelayOrigin("https://relay.example")))
    #expect(refusal?.code == .invalidField)
    #expect(refusal?.field == "relay")
  }

  @Test func readsJSONStrictly() throws {
    // README example: begin
    let value = try JSONReader().read(#"{"kind":9,"ratio":1.0,"tags":[["h","general"]]}"#)
    let kind = value.objectValue?["kind"]?.integerValue  // 9; "ratio" stays .float(1.0), never 1 or true
    let keys = value.objectValue?.keys  // ["kind", "ratio", "tags"]: document order kept
    var refusal: JSONError?
    do throws(JSONError) {
      _ = try JSONReader().read(#"{"name":"a","name":"b"}"#)
    } catch {
      refusal = error  // code .duplicateKey, field "name": no "last one wins"
    }
    // README example: end
    #expect(kind == 9)
    #expect(value.objectValue?["ratio"] == .float(1.0))
    #expect(keys == ["kind", "ratio", "tags"])
    #expect(refusal?.code == .duplicateKey)
    #expect(refusal?.field == "name")
  }

  @Test func decodesAnNpubAndCompactsIt() throws {
    // README example: begin
    let entity = try NIP19Entity(
      decoding: "nostr:npub1yh4uueqa9gzg9rchfu45wrd9r3u450vn9ghm2yzsspgl0udga66qzrftlu")
    guard case .npub(let pubkey) = entity else { return }  // 64 lowercase hex
    let title = CompactNpub.display(for: pubkey)  // "npub1yh4…ftlu"
    let fallback = CompactNpub.display(for: "not a key")  // "Someone": raw input never reaches a title
    let link = try NIP19Entity.nprofile(pubkey: pubkey, relays: ["wss://relay.example"]).encoded()
    // README example: end
    #expect(pubkey == "25ebce641d2a04828f174f2b470da51c795a3d932a2fb510508051f7f1a8eeb4")
    #expect(title == "npub1yh4…ftlu")
    #expect(fallback == "Someone")
    #expect(link.hasPrefix("nprofile1"))
    #expect(try NIP19Entity(decoding: link) == .nprofile(pubkey: pubkey, relays: ["wss://relay.example"]))
  }

  @Test func signsVerifiesAndAuthenticatesAnHTTPRequest() throws {
    // README example: begin
    let key = SecretKey.generate()
    let message = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1_767_225_600, kind: 9, tags: [["h", "general"]], content: "hello"
    ).signed(with: key)
    let received = try Event(json: message.jsonBytes())  // every field type- and length-checked
    let verification = received.verify()  // .valid(.common): id recomputed, then BIP-340
    // NIP-98 (HTTP auth): NIP98.authorizationHeader signs a request, NIP98Verifier checks it.
    // README example: end
    let url = "https://relay.example/query"
    let body = Array(#"[{"kinds":[9],"limit":10}]"#.utf8)
    let header = try NIP98.authorizationHeader(
      url: url, method: "POST", body: body, key: key, now: 1_767_225_600)
    let verifier = NIP98Verifier()
    let auth = try verifier.verify(header: header, url: url, method: "POST", body: body, now: 1_767_225_630)
    var replay: NIP98Error?
    do throws(NIP98Error) {
      _ = try verifier.verify(header: header, url: url, method: "POST", body: body, now: 1_767_225_631)
    } catch {
      replay = error
    }
    #expect(received == message)
    #expect(verification == .valid(.common))
    #expect(header.hasPrefix("Nostr "))
    #expect(auth.pubkey == key.publicKeyHex)
    #expect(auth.kind == NIP98.kind)
    #expect(replay?.code == .replayed)
  }

  @Test func encryptsAndDecryptsANIP44Payload() throws {
    // README example: begin
    let account = SecretKey.generate()
    let relay = SecretKey.generate()
    // Each side: its own secret key and the other's x-only public key give the same conversation key.
    let sealing = try NIP44.ConversationKey(secretKey: account, publicKey: relay.publicKeyHex)
    let payload = try NIP44.encrypt("wake me for #general", conversationKey: sealing)  // a fresh nonce
    let opening = try NIP44.ConversationKey(secretKey: relay, publicKey: account.publicKeyHex)
    let plaintext = try NIP44.decrypt(payload, conversationKey: opening)  // "wake me for #general"
    // with any other key: NIP44Error code .invalidMAC, checked before anything is decrypted
    // README example: end
    #expect(plaintext == "wake me for #general")
    #expect(Data(base64Encoded: payload)?.first == 2)  // the version byte
    #expect(try NIP44.encrypt("wake me for #general", conversationKey: sealing) != payload)
    var refusal: NIP44Error?
    do throws(NIP44Error) {
      let stranger = try NIP44.ConversationKey(secretKey: SecretKey.generate(), publicKey: relay.publicKeyHex)
      _ = try NIP44.decrypt(payload, conversationKey: stranger)
    } catch {
      refusal = error
    }
    #expect(refusal?.code == .invalidMAC)
  }

  @Test func parsesAPushDescriptorStrictly() throws {
    let nip11 = Array(
      try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/nip11/push-descriptor.json")))
    let broken = Array(
      try Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/nip11/push-descriptor-invalid.json")))
    // README example: begin
    // nip11, broken: Fixtures/nip11/push-descriptor.json and push-descriptor-invalid.json
    let relay = try RelayDocument(
      bytes: nip11, requiredAppProfile: PushAppProfile(id: "com.example.chat", transport: "apns"))
    let currentKey = relay.push.currentKey?.id  // "2026-12"
    let ignored = relay.ignoredTopLevelKeys  // ["read_state_snapshot", …]: unknown members kept, never fatal
    var refusal: PushDescriptorError?
    do throws(PushDescriptorError) {
      _ = try RelayDocument(bytes: broken)
    } catch {
      refusal = error  // the first failed check: field "push.limitation.max_ignore", code .wrongType
    }
    // README example: end
    #expect(relay.information.name == "push.example")
    #expect(currentKey == "2026-12")
    #expect(ignored == ["read_state_snapshot", "software_commit", "software_commit_count"])
    #expect(refusal?.field == "push.limitation.max_ignore")
    #expect(refusal?.code == .wrongType)
  }

  @Test func storesAndLooksUpAVerifiedProfile() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID()).sqlite").path
    let now: Int64 = 1_767_225_600
    // README example: begin
    let cache = try EnrichmentCache(path: path)  // one file, shared by the app and its extension
    let account = SecretKey.generate().publicKeyHex  // the user of the app
    let relay = try RelayOrigin("wss://relay.example")
    try cache.registerAccount(account, now: now)
    let alice = SecretKey.generate()
    let profile = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 60, kind: 0, tags: [],
      content: #"{"display_name":"Alice Martin"}"#
    ).signed(with: alice)
    // .stored: verified first (an unsigned or forged event throws)
    let outcome = try cache.storeProfile(event: profile, account: account, relay: relay, now: now)
    let cached = try cache.lookupProfile(account: account, relay: relay, pubkey: alice.publicKeyHex, now: now)
    // cached?.value.displayName == "Alice Martin", cached?.isFresh == true
    // README example: end
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    #expect(outcome == .stored)
    #expect(cached?.value.displayName == "Alice Martin")
    #expect(cached?.value.eventID == profile.id)
    #expect(cached?.isFresh == true)
  }

  @Test func queriesAFixtureRelayOverLoopback() async throws {
    let now: Int64 = 1_767_225_600
    // README example: begin
    let alice = SecretKey.generate()
    let message = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 10, kind: 9, tags: [], content: "hello"
    ).signed(with: alice)
    let server = RelayFixtureServer(
      data: RelayFixtureData(events: [message]), configuration: RelayFixtureConfiguration(now: now))
    let origin = try await server.start()  // http://127.0.0.1:<a free port>
    // A NIP-98 signed query through NostrHTTP's seam (conform to HTTPTransport to bring your own).
    let url = origin.appendingPathComponent("query").absoluteString
    let body = Array(#"[{"kinds":[9],"limit":10}]"#.utf8)
    let auth = try NIP98.authorizationHeader(url: url, method: "POST", body: body, key: alice, now: now)
    let response = try await URLSessionHTTPTransport.shared.send(
      HTTPTransportRequest(
        url: url, method: "POST", headers: ["Authorization": auth], body: body, maxResponseBytes: 1 << 20),
      deadline: .now + .seconds(5))  // a body over the cap throws .tooLarge; redirects are not followed
    await server.stop()
    let events = try (JSONReader().read(response.body).arrayValue ?? []).map { try Event(jsonValue: $0) }
    // response.status == 200, events.map(\.id) == [message.id]; server.requests() logs who asked what
    // README example: end
    #expect(url.hasPrefix("http://127.0.0.1:"))
    #expect(response.status == 200)
    #expect(events.map(\.id) == [message.id])
    #expect(events.first?.verify().isValid == true)
    #expect(server.requestCount(path: "/query") == 1)
    #expect(server.requests().first?.authorizedPubkey == alice.publicKeyHex)
  }

  @Test func queriesAndPublishesOverWebSocket() async throws {
    let now: Int64 = 1_767_225_600
    let alice = SecretKey.generate()
    let message = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 10, kind: 9, tags: [], content: "hello"
    ).signed(with: alice)
    let server = RelayFixtureServer(
      data: RelayFixtureData(events: [message]), configuration: RelayFixtureConfiguration(now: now))
    // README example: begin
    let origin = try await server.start()  // ws:// on the same port as http://
    // One connection for several operations; the key answers the relay's NIP-42 challenge.
    let connection = try await RelayConnection.connect(
      to: "ws://" + origin.absoluteString.dropFirst("http://".count), key: alice, clock: { now },
      deadline: .now + .seconds(5))
    let events = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(5))
    // events.map(\.id) == [message.id]: parsed strictly, verified, matched, de-duplicated;
    // connection.publish(event, deadline:) sends EVENT and returns the relay's OK
    // README example: end
    let reply = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now, kind: 9, tags: [["e", message.id]], content: "again"
    ).signed(with: alice)
    let answer = try await connection.publish(reply, deadline: .now + .seconds(5))
    await connection.close()  // close 1000, then the socket
    await server.stop()
    #expect(events.map(\.id) == [message.id])
    #expect(answer.id == reply.id)
    #expect(answer.accepted)
    #expect(answer.message == "")
  }

  @Test func resolvesAWakeAgainstAFixtureRelay() async throws {
    let now: Int64 = 1_767_225_600
    let cachePath = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID()).sqlite").path
    let account = SecretKey.generate()  // the app's user; the extension reads it from the keychain
    let alice = SecretKey.generate()
    let profile = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 3600, kind: 0, tags: [],
      content: #"{"display_name":"Alice Martin"}"#
    ).signed(with: alice)
    let message = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 5, kind: 9,
      tags: [["h", "3f6c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13"], ["p", account.publicKeyHex]],
      content: "Lunch at `noon`? https://example.com/menu"
    ).signed(with: alice)
    let relay = RelayFixtureServer(
      data: RelayFixtureData(events: [profile, message]), configuration: RelayFixtureConfiguration(now: now))
    let origin = try await relay.start()
    // README example: begin
    // What one wake does in the extension: query, verify, select, claim, enrich.
    let configuration = try ResolverConfiguration(
      relay: try RelayOrigin(origin.absoluteString), secretKey: account)
    let cache = try EnrichmentCache(path: cachePath, busyTimeout: .milliseconds(250))
    let resolver = NotificationResolver(configuration: configuration, cache: cache, clock: .fixed(now))
    let first = await resolver.resolve()  // never throws: a failure is .fallback(reason), on time
    // first.outcome: .resolved, title "Alice Martin" (profile fetched: .refreshed), body "Lunch at noon? [link]";
    // another wake for the same message gives .nothingNew(.alreadyDelivered, suppress: false): a message is presented once
    // README example: end
    await first.lingering.wait()  // let late enrichment reach the cache
    let second = await resolver.resolve()
    await relay.stop()
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cachePath + suffix) }
    guard case .resolved(let notification) = first.outcome else {
      Issue.record("expected a resolved notification, got \(first.outcome)")
      return
    }
    #expect(notification.title == "Alice Martin")
    #expect(notification.enrichment == .refreshed)
    #expect(notification.body == "Lunch at noon? [link]")
    #expect(notification.target.eventID == message.id)
    #expect(notification.senderPubkey == alice.publicKeyHex)
    #expect(second.outcome == .nothingNew(.alreadyDelivered, suppress: false))
  }
}
