import Bech32
import EnrichmentCache
import Foundation
import NIP44
import NostrEvent
import NostrJSON
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
/// block, character for character (`ReadmeDriftTests` checks it); the lines after it assert what
/// the README's comments promise.
@Suite(.timeLimit(.minutes(2))) struct ReadmeExamples {
  @Test func readsJSONStrictly() throws {
    // README example: begin
    let reader = JSONReader()
    let value = try reader.read(#"{"kind":9,"ratio":1.0,"seen":true,"tags":[["h","general"]]}"#)
    let object = value.objectValue
    let kind = object?["kind"]?.integerValue  // 9: an integer stays an integer
    let ratio = object?["ratio"]  // .float(1.0): never 1, never true
    let keys = object?.keys  // ["kind", "ratio", "seen", "tags"]: document order kept

    var refusal: JSONError?
    do throws(JSONError) {
      _ = try reader.read(#"{"name":"a","name":"b"}"#)
    } catch {
      refusal = error  // code .duplicateKey at path "name": no "last one wins"
    }
    // README example: end
    #expect(kind == 9)
    #expect(ratio == .float(1.0))
    #expect(keys == ["kind", "ratio", "seen", "tags"])
    #expect(refusal?.code == .duplicateKey)
    #expect(refusal?.field == "name")
  }

  @Test func decodesAnNpubAndCompactsIt() throws {
    // README example: begin
    let entity = try NIP19Entity(
      decoding: "nostr:npub1yh4uueqa9gzg9rchfu45wrd9r3u450vn9ghm2yzsspgl0udga66qzrftlu")
    guard case .npub(let pubkey) = entity else { return }
    // pubkey == "25ebce641d2a04828f174f2b470da51c795a3d932a2fb510508051f7f1a8eeb4"
    let title = CompactNpub.display(for: pubkey)  // "npub1yh4…ftlu"
    let fallback = CompactNpub.display(for: "not a key")  // "Someone": raw input never reaches a title

    let link = try NIP19Entity.nprofile(pubkey: pubkey, relays: ["wss://relay.example"]).encoded()
    // link starts with "nprofile1"; decoding it gives the same pubkey and relay back
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
      pubkey: key.publicKeyHex, createdAt: 1_767_225_600, kind: 9, tags: [["h", "general"]],
      content: "hello"
    ).signed(with: key)

    let received = try Event(json: message.jsonBytes())  // parse: every field type- and length-checked
    let verification = received.verify()  // .valid(.common): id recomputed, then BIP-340

    // NIP-98: the client signs the request; the server checks it (and refuses a replay).
    let url = "https://relay.example/query"
    let body = Array(#"[{"kinds":[9],"limit":10}]"#.utf8)
    let header = try NIP98.authorizationHeader(
      url: url, method: "POST", body: body, key: key, now: 1_767_225_600)
    let verifier = NIP98Verifier()
    let auth = try verifier.verify(header: header, url: url, method: "POST", body: body, now: 1_767_225_630)
    // auth.pubkey == key.publicKeyHex: the request comes from this account

    var replay: NIP98Error?
    do throws(NIP98Error) {
      _ = try verifier.verify(header: header, url: url, method: "POST", body: body, now: 1_767_225_631)
    } catch {
      replay = error  // code .replayed
    }
    // README example: end
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

    // The sender: its secret key and the other party's x-only public key give the conversation key.
    let sealing = try NIP44.ConversationKey(secretKey: account, publicKey: relay.publicKeyHex)
    let payload = try NIP44.encrypt("wake me for #general", conversationKey: sealing)
    // payload: base64 of 0x02 ‖ nonce ‖ ciphertext ‖ MAC, with a fresh random nonce on every call

    // The receiver derives the same key from its side (a caller may cache it per key pair).
    let opening = try NIP44.ConversationKey(secretKey: relay, publicKey: account.publicKeyHex)
    let plaintext = try NIP44.decrypt(payload, conversationKey: opening)  // "wake me for #general"

    var refusal: NIP44Error?
    do throws(NIP44Error) {
      let stranger = try NIP44.ConversationKey(secretKey: SecretKey.generate(), publicKey: relay.publicKeyHex)
      _ = try NIP44.decrypt(payload, conversationKey: stranger)
    } catch {
      refusal = error  // code .invalidMAC: checked before anything is decrypted
    }
    // README example: end
    #expect(plaintext == "wake me for #general")
    #expect(Data(base64Encoded: payload)?.first == 2)  // the version byte
    #expect(try NIP44.encrypt("wake me for #general", conversationKey: sealing) != payload)
    #expect(refusal?.code == .invalidMAC)
  }

  @Test func parsesAPushDescriptorStrictly() throws {
    // README example: begin
    let document = #"""
      {"name":"relay.example","supported_extensions":["nip-pl"],"software_commit":"abc",
       "push":{"origin":"wss://relay.example",
        "keys":[{"id":"2026-01","pubkey":"5be6446aa8a31c11b3b453bf8dafc9b346ff328d1fa11a0fa02a1e6461f6a9b1",
                 "current":true}],
        "app_profiles":[{"id":"com.example.chat","transport":"apns"}],
        "push_kinds":[9,40002,45001,45003],"h_grammar":"uuid-v4-lowercase",
        "class_support":{"apns":["silent","default","time_sensitive"]},
        "limitation":{"max_lease_ttl":2592000,"max_leases_per_pubkey":8,"max_subscriptions_per_lease":4,
          "max_kinds":16,"max_authors":256,"max_h":64,"max_tag_values":64,"max_ignore":128,
          "max_content_len":8192,"max_plaintext_len":4096,"max_endpoint_len":512,"max_string_len":256}}}
      """#
    let relay = try RelayDocument(
      bytes: Array(document.utf8),
      requiredAppProfile: PushAppProfile(id: "com.example.chat", transport: "apns"))
    let currentKey = relay.push.currentKey?.id  // "2026-01"
    // Unknown top-level members are kept and listed, never fatal:
    let ignored = relay.ignoredTopLevelKeys  // ["software_commit"]

    // The push part is strict: the first failed check names its field.
    let broken = document.replacingOccurrences(of: #""max_ignore":128"#, with: #""max_ignore":"128""#)
    var refusal: PushDescriptorError?
    do throws(PushDescriptorError) {
      _ = try RelayDocument(bytes: Array(broken.utf8))
    } catch {
      refusal = error  // field "push.limitation.max_ignore", code .wrongType
    }
    // README example: end
    #expect(relay.information.name == "relay.example")
    #expect(currentKey == "2026-01")
    #expect(ignored == ["software_commit"])
    #expect(relay.push.limitation.maxIgnore == 128)
    #expect(refusal?.field == "push.limitation.max_ignore")
    #expect(refusal?.code == .wrongType)
  }

  @Test func storesAndLooksUpAVerifiedProfile() throws {
    // README example: begin
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let cache = try EnrichmentCache(path: folder.appendingPathComponent("cache.sqlite").path)

    let account = SecretKey.generate().publicKeyHex  // the user of the app
    let relay = try RelayOrigin("wss://relay.example")  // stored as "https://relay.example"
    let now: Int64 = 1_767_225_600
    try cache.registerAccount(account, now: now)

    let alice = SecretKey.generate()
    let profile = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 60, kind: 0, tags: [],
      content: #"{"name":"alice","display_name":"Alice Martin"}"#
    ).signed(with: alice)
    let outcome = try cache.storeProfile(event: profile, account: account, relay: relay, now: now)
    // outcome == .stored (the event was verified first; an unsigned or forged one throws)

    let cached = try cache.lookupProfile(account: account, relay: relay, pubkey: alice.publicKeyHex, now: now)
    // cached?.value.displayName == "Alice Martin", cached?.isFresh == true
    // README example: end
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(relay.description == "https://relay.example")
    #expect(outcome == .stored)
    #expect(cached?.value.displayName == "Alice Martin")
    #expect(cached?.value.eventID == profile.id)
    #expect(cached?.isFresh == true)
  }

  @Test func queriesAFixtureRelayOverLoopback() async throws {
    // README example: begin
    let now: Int64 = 1_767_225_600
    let alice = SecretKey.generate()
    let message = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 10, kind: 9, tags: [], content: "hello"
    ).signed(with: alice)
    let server = RelayFixtureServer(
      data: RelayFixtureData(events: [message]),
      configuration: RelayFixtureConfiguration(port: 0, now: now))  // port 0: a free port
    let origin = try await server.start()  // http://127.0.0.1:<port>

    let url = origin.appendingPathComponent("query")
    let body = Array(#"[{"kinds":[9],"limit":10}]"#.utf8)
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = Data(body)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    let account = SecretKey.generate()
    request.setValue(
      try NIP98.authorizationHeader(
        url: url.absoluteString, method: "POST", body: body, key: account, now: now),
      forHTTPHeaderField: "Authorization")
    let (data, response) = try await URLSession.shared.data(for: request)
    await server.stop()

    let status = (response as? HTTPURLResponse)?.statusCode  // 200
    let events = try (JSONReader().read(data).arrayValue ?? []).map { try Event(jsonValue: $0) }
    // events.map(\.id) == [message.id]; server.requestCount(path: "/query") == 1
    // README example: end
    #expect(url.absoluteString.hasPrefix("http://127.0.0.1:"))
    #expect(status == 200)
    #expect(events.map(\.id) == [message.id])
    #expect(events.first?.verify().isValid == true)
    #expect(server.requestCount(path: "/query") == 1)
    #expect(server.requests().first?.authorizedPubkey == account.publicKeyHex)
  }

  @Test func queriesAndPublishesOverWebSocket() async throws {
    // README example: begin
    let now: Int64 = 1_767_225_600
    let alice = SecretKey.generate()
    let message = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 10, kind: 9, tags: [], content: "hello"
    ).signed(with: alice)
    let server = RelayFixtureServer(
      data: RelayFixtureData(events: [message]), configuration: RelayFixtureConfiguration(now: now))
    let origin = try await server.start()  // http://127.0.0.1:<port>; ws:// on the same port
    let url = "ws://" + origin.absoluteString.dropFirst("http://".count)

    // One connection, several operations; the key answers the relay's NIP-42 challenge.
    let connection = try await RelayConnection.connect(
      to: url, key: alice, clock: { now }, deadline: .now + .seconds(5))
    let events = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(5))
    // events.map(\.id) == [message.id]: parsed strictly, verified, matched, de-duplicated
    let reply = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now, kind: 9, tags: [["e", message.id]], content: "again"
    ).signed(with: alice)
    let answer = try await connection.publish(reply, deadline: .now + .seconds(5))
    // answer == PublishResult(id: reply.id, accepted: true, message: "")
    await connection.close()  // close 1000, then the socket
    await server.stop()
    // README example: end
    #expect(events.map(\.id) == [message.id])
    #expect(answer == PublishResult(id: reply.id, accepted: true, message: ""))
  }

  @Test func resolvesAWakeAgainstAFixtureRelay() async throws {
    // README example: begin
    let now: Int64 = 1_767_225_600
    let account = SecretKey.generate()  // the app's user; the extension reads it from the keychain
    let alice = SecretKey.generate()
    let profile = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 3600, kind: 0, tags: [],
      content: #"{"display_name":"Alice Martin"}"#
    ).signed(with: alice)
    let message = try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: now - 5, kind: 9, tags: [["p", account.publicKeyHex]],
      content: "Lunch at `noon`? https://example.com/menu"
    ).signed(with: alice)
    let relay = RelayFixtureServer(
      data: RelayFixtureData(events: [profile, message]), configuration: RelayFixtureConfiguration(now: now))
    let origin = try await relay.start()

    // What one wake does, in the extension or here:
    let configuration = try ResolverConfiguration(
      relay: try RelayOrigin(origin.absoluteString), secretKey: account)
    let cachePath = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID()).sqlite").path
    let cache = try EnrichmentCache(path: cachePath, busyTimeout: .milliseconds(250))
    let resolver = NotificationResolver(configuration: configuration, cache: cache, clock: .fixed(now))
    let first = await resolver.resolve()
    // first.outcome: .resolved — title "Alice Martin" (profile fetched: enrichment .refreshed),
    // body "Lunch at noon? [link]", target.eventID == message.id
    await first.lingering.wait()  // let late enrichment reach the cache

    let second = await resolver.resolve()  // another wake for the same message
    // second.outcome == .fallback(.alreadyDelivered): a message is presented once
    await relay.stop()
    // README example: end
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
    #expect(second.outcome == .fallback(.alreadyDelivered))
  }
}
