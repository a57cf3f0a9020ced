import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRelay
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The demo data folder served in push mode over real loopback sockets: lease ingest on both
/// bridges, wakes from stored events, delivery to a gateway fixture, tombstones, visibility.
final class PushModeRelay: LoopbackFixture, @unchecked Sendable {
  /// The demo channel whose kind 39002 (signed by NIP-11 `self`) lists alice, the account and carol.
  static let channel = "3f6c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13"

  let server: RelayFixtureServer
  let gateway: GatewayFixture?
  let gatewayClock: ManualUnixClock
  let origin: String
  let webSocket: String
  let descriptor: PushDescriptor
  let pushKey: SecretKey

  /// A push-mode fixture on the demo folder at `Demo.now`, with a gateway fixture when asked.
  init(
    withGateway: Bool, pushKey: SecretKey = Demo.relayKey, statePath: String? = nil,
    tenantOrigin: String? = nil
  ) async throws {
    self.pushKey = pushKey
    gatewayClock = ManualUnixClock(seconds: Demo.now)
    var gatewayURL: String?
    if withGateway {
      let clock = gatewayClock
      let gateway = try GatewayFixture(
        configuration: GatewayFixtureConfiguration(quota: 0), clock: { clock.seconds })
      let base = try await gateway.start()
      gatewayURL = String(base.absoluteString.trimmingSuffix("/"))
      self.gateway = gateway
    } else {
      gateway = nil
    }
    let data = try RelayFixtureData.load(folder: Demo.packageRoot.appendingPathComponent("Fixtures/demo"))
    var mode = RelayFixturePushMode(pushKey: pushKey, gatewayURL: gatewayURL, statePath: statePath)
    mode.tenantOrigin = tenantOrigin
    server = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(now: Demo.now, push: mode))
    origin = String(try await server.start().absoluteString.trimmingSuffix("/"))
    webSocket = try #require(server.relayOrigin).webSocketURL
    descriptor = try #require(server.pushDescriptor)
  }

  func stop() async {
    await server.stop()
    await gateway?.stop()
  }

  /// An active lease of the account for `endpoint` (a gateway grant, or any opaque string).
  func lease(endpoint: String, generation: Int64 = 1, d: InstallationID, createdAt: Int64 = Demo.now)
    throws -> Event
  {
    let subscriptions = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: Demo.account.publicKeyHex, joined: [Self.channel], muted: [], mentionsOnly: false)
    return try LeaseBuilder(descriptor: descriptor, appProfile: Demo.profile).active(
      endpoint: endpoint, subscriptions: subscriptions, generation: generation, createdAt: createdAt,
      installationID: d, now: Demo.now, signer: Demo.account)
  }

  /// The account's tombstone for `d`.
  func tombstone(generation: Int64, d: InstallationID, createdAt: Int64) throws -> Event {
    try LeaseBuilder(descriptor: descriptor).tombstone(
      installationID: d, generation: generation, createdAt: createdAt, now: Demo.now, signer: Demo.account)
  }

  /// A kind 9 by alice in the demo channel.
  static func message(_ content: String, createdAt: Int64 = Demo.now, channel: String = channel) -> Event {
    Demo.event(kind: 9, by: Demo.alice, createdAt: createdAt, tags: [["h", channel]], content: content)
  }

  /// Opens a NIP-01 connection to the fixture answering AUTH with `key`.
  func connect(_ key: SecretKey?) async throws -> RelayConnection {
    try await RelayConnection.connect(
      to: webSocket, key: key, clock: { Demo.now }, deadline: .now + .seconds(10))
  }

  /// Publishes `event` over a fresh WebSocket connection authenticating as `key`.
  func publishOverWebSocket(_ event: Event, as key: SecretKey?) async throws -> PublishResult {
    let connection = try await connect(key)
    do {
      let result = try await connection.publish(event, deadline: .now + .seconds(10))
      await connection.close()
      return result
    } catch {
      await connection.close()
      throw error
    }
  }

  /// `POST /events` with `event`, NIP-98 signed by `key`: the status and the parsed answer.
  func post(_ event: Event, as key: SecretKey) async throws -> (status: Int, answer: JSONObject) {
    let body = event.jsonBytes()
    let url = origin + "/events"
    let auth = try NIP98.authorizationHeader(url: url, method: "POST", body: body, key: key, now: Demo.now)
    let (status, bytes) = try await Self.send("POST", url, body: body, authorization: auth)
    return (status, try #require(try JSONReader().read(bytes).objectValue))
  }

  /// `POST /query` with `filters`, NIP-98 signed by `key`.
  func query(_ filters: String, as key: SecretKey) async throws -> (status: Int, body: [UInt8]) {
    let body = Array(filters.utf8)
    let url = origin + "/query"
    let auth = try NIP98.authorizationHeader(url: url, method: "POST", body: body, key: key, now: Demo.now)
    return try await Self.send("POST", url, body: body, authorization: auth)
  }

  static func send(
    _ method: String, _ url: String, body: [UInt8]?, authorization: String?, accept: String? = nil
  )
    async throws -> (Int, [UInt8])
  {
    var headers: [String: String] = [:]
    if let authorization { headers["Authorization"] = authorization }
    if let accept { headers["Accept"] = accept }
    return try await LoopbackFetch.send(url, method: method, headers: headers, body: body)
  }

  /// A grant of the gateway fixture for `token`, issued to the push key.
  func grant(token: String = "a1b2c3d4", generation: Int64 = 1) throws -> String {
    try #require(gateway).issueGrant(
      relayPubkey: pushKey.publicKeyHex, deviceToken: token, generation: generation
    ).grant
  }
}

@Suite(.timeLimit(.minutes(2))) struct FixturePushModeTests {
  @Test func leaseOverWebSocketThenMessageDeliversOneWakeThroughTheGateway() async throws {
    try await withStarted(try await PushModeRelay(withGateway: true)) { relay in
      let lease = try relay.lease(endpoint: try relay.grant(), d: .generate())
      let enrolled = try await relay.publishOverWebSocket(lease, as: Demo.account)
      #expect(enrolled.accepted)
      #expect(enrolled.message == "")
      let message = PushModeRelay.message("wake up")
      let sent = try await relay.publishOverWebSocket(message, as: Demo.alice)
      #expect(sent.accepted)
      let gateway = try #require(relay.gateway)
      let delivered = await Polling.eventually(within: .seconds(20)) {
        (try? relay.server.wakes().first?.state) == .delivered
      }
      #expect(delivered)
      let wakes = try relay.server.wakes()
      #expect(wakes.count == 1)
      #expect(wakes.first?.candidate.eventID == message.id)
      #expect(wakes.first?.attempts == 1)
      let deliveries = gateway.deliveries()
      #expect(deliveries.count == 1)
      #expect(deliveries.first?.requestID == wakes.first?.requestID)
      #expect(deliveries.first?.deviceToken == "a1b2c3d4")
      #expect(deliveries.first?.relayPubkey == Demo.relayKey.publicKeyHex)
    }
  }

  @Test func aRetryWaitsForTheFixedClockToAdvance() async throws {
    try await withStarted(try await PushModeRelay(withGateway: true)) { relay in
      let gateway = try #require(relay.gateway)
      gateway.script([GatewayScriptEntry(status: 503)])
      let lease = try relay.lease(endpoint: try relay.grant(), d: .generate())
      #expect(try await relay.post(lease, as: Demo.account).status == 200)
      #expect(try await relay.post(PushModeRelay.message("retry me"), as: Demo.alice).status == 200)
      let refused = await Polling.eventually(within: .seconds(20)) {
        (try? relay.server.wakes().first).map { $0?.attempts == 1 && $0?.state == .pending } ?? false
      }
      #expect(refused)
      let wake = try #require(try relay.server.wakes().first)
      #expect(wake.nextAttemptMilliseconds == Demo.now * 1000 + 2000)
      #expect(wake.lastStatus == 503)
      // The worker sweeps every 100 ms; in half a second on a fixed clock it must not retry.
      let early = await Polling.eventually(within: .milliseconds(500)) {
        (try? relay.server.wakes().first?.attempts) != 1
      }
      #expect(!early)
      relay.gatewayClock.advance(by: .seconds(2))
      relay.server.advanceClock(by: .seconds(2))
      let delivered = await Polling.eventually(within: .seconds(20)) {
        (try? relay.server.wakes().first?.state) == .delivered
      }
      #expect(delivered)
      #expect(try relay.server.wakes().first?.attempts == 2)
      #expect(gateway.deliveries().map(\.requestID) == [wake.requestID])
      #expect(gateway.requests().map(\.requestID) == [wake.requestID, wake.requestID])
    }
  }

  /// `relay --origin`: the tenant origin is served as `push.origin`, and NIP-98 `u` values on its
  /// base are accepted beside the relay's own; any other base is not.
  @Test func aTenantOriginIsServedAndAcceptedForNIP98() async throws {
    let tenant = "ws://127.0.0.1:48111"
    try await withStarted(try await PushModeRelay(withGateway: false, tenantOrigin: tenant)) { relay in
      #expect(relay.descriptor.origin == tenant)
      #expect(relay.webSocket != tenant)
      let lease = try relay.lease(endpoint: "grant", d: .generate())
      var answers: [Int] = []
      for base in ["http://127.0.0.1:48111", "http://127.0.0.1:48999"] {
        let body = lease.jsonBytes()
        let auth = try NIP98.authorizationHeader(
          url: base + "/events", method: "POST", body: body, key: Demo.account, now: Demo.now)
        let (status, _) = try await PushModeRelay.send(
          "POST", relay.origin + "/events", body: body, authorization: auth)
        answers.append(status)
      }
      #expect(answers == [200, 401])
      #expect(try relay.server.leaseStore?.allLeases(origin: tenant).map(\.eventID) == [lease.id])
    }
  }

  @Test func leaseWithoutAuthenticationIsRefusedOverWebSocket() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay in
      let lease = try relay.lease(endpoint: "opaque-grant", d: .generate())
      let answer = try await relay.publishOverWebSocket(lease, as: nil)
      #expect(!answer.accepted)
      #expect(answer.message == "auth-required: not authenticated")
      #expect(try relay.server.leaseStore?.allLeases(origin: relay.descriptor.origin).isEmpty == true)
    }
  }

  @Test func leaseOverPostEventsAnswersAcceptDuplicateAndRefusals() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay in
      let d = InstallationID.generate()
      let lease = try relay.lease(endpoint: "opaque-grant", generation: 2, d: d)
      let first = try await relay.post(lease, as: Demo.account)
      #expect(first.status == 200)
      #expect(first.answer["accepted"] == .bool(true))
      #expect(first.answer["message"] == .string(""))
      let again = try await relay.post(lease, as: Demo.account)
      #expect(again.status == 200)
      #expect(again.answer["message"] == .string("duplicate: already have this event"))
      let other = try await relay.post(lease, as: Demo.alice)
      #expect(other.status == 400)
      #expect(
        other.answer["message"] == .string("invalid: event pubkey does not match authenticated identity"))
      let sameGeneration = try relay.lease(
        endpoint: "opaque-grant-2", generation: 2, d: d, createdAt: Demo.now + 1)
      let stale = try await relay.post(sameGeneration, as: Demo.account)
      #expect(stale.status == 400)
      #expect(stale.answer["message"] == .string("invalid: stale generation"))
      #expect(stale.answer["id"] == .string(sameGeneration.id))
    }
  }

  @Test func leaseForAnotherRelayIsRefusedWithTheValidatorsReason() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay in
      // Built for the demo descriptor's origin (port 48111), not this fixture's.
      let foreign = Demo.lease(endpoint: "opaque-grant", generation: 1, d: .generate())
      let answer = try await relay.post(foreign, as: Demo.account)
      #expect(answer.status == 400)
      let message = try #require(answer.answer["message"]?.stringValue)
      #expect(message.hasPrefix("invalid: "))
      #expect(try relay.server.leaseStore?.allLeases(origin: relay.descriptor.origin).isEmpty == true)
    }
  }

  @Test func withoutAPushKeyALeaseIsNotSupported() async throws {
    let data = try RelayFixtureData.load(folder: Demo.packageRoot.appendingPathComponent("Fixtures/demo"))
    let server = RelayFixtureServer(data: data, configuration: RelayFixtureConfiguration(now: Demo.now))
    let origin = String(try await server.start().absoluteString.trimmingSuffix("/"))
    try await server.serving {
      let connection = try await RelayConnection.connect(
        to: try #require(server.relayOrigin).webSocketURL, key: Demo.account, clock: { Demo.now },
        deadline: .now + .seconds(10))
      let lease = Demo.lease(endpoint: "opaque-grant", generation: 1, d: .generate())
      let answer = try await connection.publish(lease, deadline: .now + .seconds(10))
      await connection.close()
      #expect(!answer.accepted)
      #expect(answer.message == "invalid: push not supported")
      #expect(try server.wakes().isEmpty)
    }
  }

  @Test func tombstoneStopsFurtherWakes() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay in
      let d = InstallationID.generate()
      #expect(
        try await relay.post(try relay.lease(endpoint: "opaque-grant", d: d), as: Demo.account).status == 200)
      let before = PushModeRelay.message("first")
      #expect(try await relay.post(before, as: Demo.alice).status == 200)
      #expect(try relay.server.wakes().map(\.candidate.eventID) == [before.id])
      let tombstone = try relay.tombstone(generation: 2, d: d, createdAt: Demo.now + 1)
      let revoked = try await relay.publishOverWebSocket(tombstone, as: Demo.account)
      #expect(revoked.accepted)
      let after = PushModeRelay.message("second", createdAt: Demo.now + 2)
      #expect(try await relay.post(after, as: Demo.alice).status == 200)
      let wakes = try relay.server.wakes()
      #expect(wakes.map(\.candidate.eventID) == [before.id])
      #expect(wakes.first?.state == .pending)
    }
  }

  @Test func aRecentMessageIsBackFilledWhenTheLeaseArrivesLater() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay async throws in
      let message = PushModeRelay.message("before the lease")
      #expect(try await relay.post(message, as: Demo.alice).status == 200)
      #expect(try relay.server.wakes().isEmpty)
      #expect(
        try await relay.post(try relay.lease(endpoint: "opaque-grant", d: .generate()), as: Demo.account)
          .status
          == 200)
      #expect(try relay.server.wakes().map(\.candidate.eventID) == [message.id])
    }
  }

  @Test func aMessageInAChannelWithoutARosterWakesNobody() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay async throws in
      #expect(
        try await relay.post(try relay.lease(endpoint: "opaque-grant", d: .generate()), as: Demo.account)
          .status
          == 200)
      let stranger = PushModeRelay.message("elsewhere", channel: "9d0e1f2a-3b4c-4d5e-8f60-718293a4b5c6")
      #expect(try await relay.post(stranger, as: Demo.alice).status == 200)
      #expect(try relay.server.wakes().isEmpty)
      let member = PushModeRelay.message("here")
      #expect(try await relay.post(member, as: Demo.alice).status == 200)
      #expect(try relay.server.wakes().map(\.candidate.eventID) == [member.id])
    }
  }

  @Test func aNewerMemberListWithoutTheAccountStopsItsChannelWakes() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay async throws in
      #expect(
        try await relay.post(try relay.lease(endpoint: "opaque-grant", d: .generate()), as: Demo.account)
          .status
          == 200)
      let shrunk = Demo.event(
        kind: 39002, by: Demo.relayKey, createdAt: Demo.now,
        tags: [["d", PushModeRelay.channel], ["p", Demo.alice.publicKeyHex]], content: "")
      #expect(try await relay.post(shrunk, as: Demo.relayKey).status == 200)
      #expect(try await relay.post(PushModeRelay.message("after"), as: Demo.alice).status == 200)
      #expect(try relay.server.wakes().isEmpty)
      let forged = Demo.event(
        kind: 39002, by: Demo.carol, createdAt: Demo.now + 1,
        tags: [["d", PushModeRelay.channel], ["p", Demo.account.publicKeyHex]], content: "")
      #expect(try await relay.post(forged, as: Demo.carol).status == 200)
      #expect(try await relay.post(PushModeRelay.message("still not"), as: Demo.alice).status == 200)
      #expect(try relay.server.wakes().isEmpty)
    }
  }

  @Test func leasesAreVisibleOnlyToTheirAuthorOverREQAndQuery() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay in
      let lease = try relay.lease(endpoint: "opaque-grant", d: .generate())
      #expect(try await relay.post(lease, as: Demo.account).status == 200)
      let own = Filter(authors: [Demo.account.publicKeyHex], kinds: [30350])
      let account = try await relay.connect(Demo.account)
      let seen = try await account.query([own], deadline: .now + .seconds(10))
      await account.close()
      #expect(seen.map(\.id) == [lease.id])
      let alice = try await relay.connect(Demo.alice)
      await #expect(throws: RelayConnectionError.self) {
        _ = try await alice.query([own], deadline: .now + .seconds(10))
      }
      let mixed = try await alice.query([Filter(kinds: [30350, 9])], deadline: .now + .seconds(10))
      await alice.close()
      #expect(!mixed.contains { $0.kind == 30350 })
      let ownJSON = #"[{"kinds":[30350],"authors":["\#(Demo.account.publicKeyHex)"]}]"#
      let queried = try await relay.query(ownJSON, as: Demo.account)
      #expect(queried.status == 200)
      let ids = try JSONReader().read(queried.body).arrayValue?.compactMap {
        $0.objectValue?["id"]?.stringValue
      }
      #expect(ids == [lease.id])
      #expect(try await relay.query(ownJSON, as: Demo.alice).status == 403)
      let aliceOwn = #"[{"kinds":[30350],"authors":["\#(Demo.alice.publicKeyHex)"]}]"#
      let empty = try await relay.query(aliceOwn, as: Demo.alice)
      #expect(empty.status == 200)
      #expect(try JSONReader().read(empty.body).arrayValue?.isEmpty == true)
    }
  }

  @Test func asksAnUnauthenticatedREQNamingAnAuthorOnlyKindToAuthenticate() async throws {
    try await withStarted(try await PushModeRelay(withGateway: false)) { relay in
      let lease = try relay.lease(endpoint: "opaque-grant", d: .generate())
      #expect(try await relay.post(lease, as: Demo.account).status == 200)
      // No key: the REQ is CLOSED auth-required, not answered without the author's own lease.
      let anonymous = try await relay.connect(nil)
      let error = await #expect(throws: RelayConnectionError.self) {
        _ = try await anonymous.query([Filter(kinds: [30350, 9])], deadline: .now + .seconds(10))
      }
      #expect(error?.code == .authRequired)
      #expect(error?.message == "auth-required: not authenticated")
      // A filter without kinds still omits author-only events silently.
      let unnamed = try await anonymous.query(
        [Filter(authors: [Demo.account.publicKeyHex])], deadline: .now + .seconds(10))
      #expect(!unnamed.contains { $0.kind == 30350 })
      await anonymous.close()
      // With a key the client authenticates, asks again and gets its own lease.
      let account = try await relay.connect(Demo.account)
      let mine = try await account.query([Filter(kinds: [30350, 9])], deadline: .now + .seconds(10))
      await account.close()
      #expect(mine.filter { $0.kind == 30350 }.map(\.id) == [lease.id])
    }
  }

  @Test func servesTheDescriptorRewrittenToItsOriginAndPushKey() async throws {
    let pushKey = SecretKey.generate()
    try await withStarted(try await PushModeRelay(withGateway: false, pushKey: pushKey)) { relay in
      let (status, body) = try await PushModeRelay.send(
        "GET", relay.origin + "/", body: nil, authorization: nil, accept: "application/nostr+json")
      #expect(status == 200)
      let served = try PushDescriptor(strictJSON: body)
      #expect(served.origin == relay.webSocket)
      #expect(served.currentKey?.id == Demo.keyID)
      #expect(served.currentKey?.pubkey == pushKey.publicKeyHex)
      #expect(served == relay.descriptor)
      let lease = try relay.lease(endpoint: "opaque-grant", d: .generate())
      #expect(try await relay.post(lease, as: Demo.account).status == 200)
    }
  }

  @Test func pushModeRefusesIPv6Loopback() async throws {
    let data = try RelayFixtureData.load(folder: Demo.packageRoot.appendingPathComponent("Fixtures/demo"))
    let server = RelayFixtureServer(
      data: data,
      configuration: RelayFixtureConfiguration(
        host: "::1", push: RelayFixturePushMode(pushKey: Demo.relayKey)))
    let error = await #expect(throws: RelayFixtureError.self) { try await server.start() }
    #expect(error?.code == .ipv4LoopbackOnly)
    #expect(error?.field == "host")
  }

  @Test(arguments: [nil, #"{"name":"no push here"}"#])
  func pushModeNeedsAValidDescriptor(document: String?) async throws {
    let data = RelayFixtureData(nip11: document.map { Array($0.utf8) }, events: [])
    let server = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(push: RelayFixturePushMode(pushKey: Demo.relayKey))
    )
    let error = await #expect(throws: RelayFixtureError.self) { try await server.start() }
    #expect(error?.code == .invalidData)
    #expect(error?.field == "nip11.json")
    await server.stop()
  }

  @Test func stopClosesTheStateFileWhichAnotherRelayReopensWithItsLeases() async throws {
    let path = Demo.temporaryPath("fixture-push")
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let first = try await PushModeRelay(withGateway: false, statePath: path)
    let lease = try first.lease(endpoint: "opaque-grant", d: .generate())
    #expect(try await first.post(lease, as: Demo.account).status == 200)
    await first.stop()
    let database = try PushStateDatabase(path: path)
    #expect(try database.integrityCheck() == ["ok"])
    let rows = try SQLiteLeaseStore(database: database).allLeases(origin: first.descriptor.origin)
    #expect(rows.map(\.eventID) == [lease.id])
  }

  /// The generation comes from `nip11.json`; a `buzz-push-v1` fixture does not start over the
  /// `nip-pl` leases of its origin, and does on another origin of the same file.
  @Test func refusesToServeTheOtherGenerationOverAnOriginsLeases() async throws {
    let path = Demo.temporaryPath("fixture-push-generation")
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let first = try await PushModeRelay(withGateway: false, statePath: path)
    #expect(first.descriptor.pushProtocol == .nipPL)
    let lease = try first.lease(endpoint: "opaque-grant", d: .generate())
    #expect(try await first.post(lease, as: Demo.account).status == 200)
    let port = try #require(URL(string: first.origin)?.port)
    await first.stop()
    let v1 = try RelayFixtureData.load(folder: Demo.packageRoot.appendingPathComponent("Fixtures/demo-v1"))
    let same = RelayFixtureServer(
      data: v1,
      configuration: RelayFixtureConfiguration(
        port: port, now: Demo.now, push: RelayFixturePushMode(pushKey: Demo.relayKey, statePath: path)))
    let error = await #expect(throws: RelayFixtureError.self) { try await same.start() }
    await same.stop()
    #expect(error?.field == "nip11.json")
    let message = error?.message ?? ""
    #expect(message.contains("nip-pl leases") && message.contains("started as buzz-push-v1"))
    #expect(message.contains("leases and grants are not portable"))
    let other = RelayFixtureServer(
      data: v1,
      configuration: RelayFixtureConfiguration(
        now: Demo.now, push: RelayFixturePushMode(pushKey: Demo.relayKey, statePath: path)))
    _ = try await other.start()
    #expect(other.pushDescriptor?.pushProtocol == .buzzPushV1)
    await other.stop()
  }
}
