import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushRelayServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ids of a `/query` answer, in its order.
func answerIDs(_ body: [UInt8]) throws -> [String] {
  try #require(JSONReader().read(body).arrayValue).compactMap { $0.objectValue?["id"]?.stringValue }
}

/// A kind 1 note by `key` at `createdAt` with `tags`, signed.
func note(by key: SecretKey, _ content: String, at createdAt: Int64, tags: [[String]] = []) -> Event {
  try! UnsignedEvent(pubkey: key.publicKeyHex, createdAt: createdAt, kind: 1, tags: tags, content: content)
    .signed(with: key)
}

/// `POST /query` unites what the service stored with what its upstream answers (the fixture
/// relay, whose events the test places and forges).
@Suite struct ServiceQueryUnionTests {
  @Test func anEventOnlyTheUpstreamHasIsReturnedBesideTheStoredOnesNewestFirst() async throws {
    let world = try await ServiceWorld()
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      #expect(
        await Polling.eventually(within: .seconds(5)) {
          world.service.metrics.openSubscriptions(world.upstreamURL) > 0
        })
      let now = Int64(Date().timeIntervalSince1970)
      // A mention, published upstream: the service ingests and stores it, and the upstream
      // answers it too (one copy in the answer).
      let mention = ServiceWorld.mention(content: "stored and upstream", at: now - 10)
      #expect(try await world.publishUpstream(mention).accepted)
      #expect(
        await Polling.eventually(within: .seconds(10)) {
          (try? world.service.events.contains(id: mention.id)) == true
        })
      // A note by Alice no lease wants, an hour old: only the upstream has it.
      let old = note(by: Keys.alice, "only upstream", at: now - 3600)
      try world.upstream.add([old])
      #expect(try !world.service.events.contains(id: old.id))
      let (status, body) = try await world.query(
        ##"[{"kinds":[1],"authors":["\##(Keys.alice.publicKeyHex)"]}]"##, key: Keys.account)
      #expect(status == 200)
      #expect(try answerIDs(body) == [mention.id, old.id])
      // `limit` holds over the union: the newest one.
      let (_, limited) = try await world.query(
        ##"[{"kinds":[1],"authors":["\##(Keys.alice.publicKeyHex)"],"limit":1}]"##, key: Keys.account)
      #expect(try answerIDs(limited) == [mention.id])
      // Not stored by the asking: an answer is not ingested.
      #expect(try !world.service.events.contains(id: old.id))
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func aForgedUpstreamEventIsNotReturned() async throws {
    let world = try await ServiceWorld()
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      let now = Int64(Date().timeIntervalSince1970)
      let good = note(by: Keys.alice, "genuine", at: now - 3600)
      // A bad signature: another event's signature on a correct id.
      var badSignature = try #require(
        note(by: Keys.alice, "bad signature", at: now - 3500).jsonValue.objectValue)
      badSignature["sig"] = .string(good.sig)
      // A changed content under the original id and signature.
      var changed = try #require(note(by: Keys.alice, "as signed", at: now - 3400).jsonValue.objectValue)
      changed["content"] = .string("changed after signing")
      let forged = [try Event(jsonValue: .object(badSignature)), try Event(jsonValue: .object(changed))]
      try world.upstream.add([good] + forged)
      let (status, body) = try await world.query(
        ##"[{"kinds":[1],"authors":["\##(Keys.alice.publicKeyHex)"]}]"##, key: Keys.account)
      #expect(status == 200)
      #expect(try answerIDs(body) == [good.id])
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  /// Upstream answers pass the same visibility as stored events: a NIP-29 message only to a
  /// member, by the roster the upstream's own key signed. (The fixture relay serves gift wraps
  /// only to their authenticated recipient, as a careful relay does; `ThirdPartyQueryTests` meets
  /// a relay that serves them to anyone.)
  @Test func upstreamGroupMessagesAreShownOnlyToMembers() async throws {
    let relayKey = Keys.carol
    let world = try await ServiceWorld(
      upstreamInformation: #"{"name":"groups","self":"\#(relayKey.publicKeyHex)"}"#)
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      // The roster is trusted once the subscriber read the upstream's NIP-11 (before it subscribes).
      #expect(
        await Polling.eventually(within: .seconds(5)) {
          world.service.metrics.openSubscriptions(world.upstreamURL) > 0
        })
      let now = Int64(Date().timeIntervalSince1970)
      let joined = "5b1f8a3e-0c4d-4e2f-9a6b-7c8d9e0f1a2b"
      let other = "6c2a9b4f-1d5e-4f3a-8b7c-8d9e0f1a2b3c"
      let members = { (channel: String, pubkeys: [String]) in
        try! UnsignedEvent(
          pubkey: relayKey.publicKeyHex, createdAt: now - 60, kind: 39002,
          tags: [["d", channel]] + pubkeys.map { ["p", $0] }, content: ""
        ).signed(with: relayKey)
      }
      let rosters = [
        members(joined, [Keys.account.publicKeyHex, Keys.alice.publicKeyHex]),
        members(other, [Keys.alice.publicKeyHex]),
      ]
      let lines: [UInt8] = rosters.flatMap { JSONWriter.bytes($0.jsonValue) + [UInt8(10)] }
      #expect(
        try await LoopbackFetch.send(world.adminURL + "/events", method: "POST", body: lines).status == 200)
      let message = { (channel: String, at: Int64) in
        try! UnsignedEvent(
          pubkey: Keys.alice.publicKeyHex, createdAt: at, kind: 9, tags: [["h", channel]], content: "hi"
        ).signed(with: Keys.alice)
      }
      let inJoined = message(joined, now - 3600)
      let inOther = message(other, now - 3500)
      // A message with no `h` tag is in no channel: shown to no one.
      let nowhere = try UnsignedEvent(
        pubkey: Keys.alice.publicKeyHex, createdAt: now - 3400, kind: 9, tags: [], content: "hi"
      ).signed(with: Keys.alice)
      try world.upstream.add([inJoined, inOther, nowhere])
      let (status, body) = try await world.query(#"[{"kinds":[9]}]"#, key: Keys.account)
      #expect(status == 200)
      #expect(try answerIDs(body) == [inJoined.id])
      // Alice, a member of both, sees both channels' messages.
      let alices = try world.lease(for: Keys.alice, kinds: [1], token: "ddeeff")
      #expect(try await world.enroll(alices, as: Keys.alice).accepted)
      let (_, hers) = try await world.query(#"[{"kinds":[9]}]"#, key: Keys.alice)
      #expect(try answerIDs(hers) == [inOther.id, inJoined.id])
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// A TCP listener on 127.0.0.1 that never accepts: connections complete in the kernel's backlog
/// and are never answered — an upstream that is up but silent.
final class SilentListener: Sendable {
  let descriptor: Int32
  let port: UInt16

  init() throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ready = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && listen(descriptor, 64) == 0
          && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard descriptor >= 0, ready else {
      close(descriptor)
      throw ThirdPartyRelay.StartFailure(message: "silent listener")
    }
    self.descriptor = descriptor
    port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close(descriptor) }
}

/// An upstream that never answers does not delay `/query` past `query_timeout`.
@Suite struct ServiceQueryTimeoutTests {
  /// The spec states no slack for the deadline; two seconds covers scheduling on a loaded test
  /// machine without hiding a wait for the upstream's own connect timeout (5 s).
  static let slack: Duration = .seconds(2)

  @Test func aSilentUpstreamGetsTheStoredEventsWithinTheTimeout() async throws {
    let silent = try SilentListener()
    let world = try await ServiceWorld(upstream: "ws://127.0.0.1:\(silent.port)")
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      let mention = ServiceWorld.mention(content: "posted by a hook")
      let line = JSONWriter.bytes(mention.jsonValue) + [10]
      #expect(
        try await LoopbackFetch.send(world.adminURL + "/events", method: "POST", body: line).status == 200)
      let started = ContinuousClock.now
      let (status, body) = try await world.query(
        ##"[{"kinds":[1],"#p":["\##(Keys.account.publicKeyHex)"]}]"##, key: Keys.account)
      let elapsed = ContinuousClock.now - started
      #expect(status == 200)
      #expect(try answerIDs(body) == [mention.id])
      #expect(elapsed <= world.configuration.queryTimeout + Self.slack, "\(elapsed)")
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// `/query` asks relays no one here wrote: an event only the upstream has comes back.
@Suite(.enabled(if: ThirdPartyRelay.isInstalled, "bash Scripts/setup installs nostr-relay and nostr-sdk"))
struct ThirdPartyQueryTests {
  @Test(arguments: ThirdPartyRelay.Kind.allCases)
  func anEventOnlyTheUpstreamHasIsReturned(_ kind: ThirdPartyRelay.Kind) async throws {
    try await ServiceWorld.following(kind, auth: kind == .rustNostrAuth) { world, relay in
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      // A note no lease wants: the upstream keeps it, the service does not.
      let root = note(
        by: Keys.alice, "a thread root via \(kind)", at: Int64(Date().timeIntervalSince1970) - 600)
      let published = try await world.publishUpstream(root)
      #expect(published.accepted, "\(published.message)")
      let (status, body) = try await world.query(##"[{"ids":["\##(root.id)"]}]"##, key: Keys.account)
      #expect(status == 200)
      #expect(try answerIDs(body) == [root.id])
      #expect(try !world.service.events.contains(id: root.id))
    }
  }
  /// PyPI `nostr-relay` serves gift wraps to anyone who asks (checked here, so the test shows the
  /// service's rule and not the relay's): the service passes on only the account's own.
  @Test func aGiftWrapForAnotherAccountFromTheUpstreamIsNeverReturned() async throws {
    try await ServiceWorld.following(.nostrRelay) { world, relay in
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      let now = Int64(Date().timeIntervalSince1970)
      let wrap = { (recipient: SecretKey, at: Int64) in
        try! UnsignedEvent(
          pubkey: Keys.carol.publicKeyHex, createdAt: at, kind: 1059, tags: [["p", recipient.publicKeyHex]],
          content: "sealed"
        ).signed(with: Keys.carol)
      }
      let forAlice = wrap(Keys.alice, now - 7200)
      let forAccount = wrap(Keys.account, now - 7300)
      for event in [forAlice, forAccount] {
        let published = try await world.publishUpstream(event, key: Keys.carol)
        #expect(published.accepted, "\(published.message)")
      }
      let direct = try await RelayConnection.connect(to: relay.url, deadline: .now + .seconds(5))
      let served = try await direct.query([Filter(kinds: [1059])], deadline: .now + .seconds(5))
      await direct.close()
      #expect(Set(served.map(\.id)) == [forAlice.id, forAccount.id])
      let (status, body) = try await world.query(#"[{"kinds":[1059]}]"#, key: Keys.account)
      #expect(status == 200)
      #expect(try answerIDs(body) == [forAccount.id])
    }
  }
}
