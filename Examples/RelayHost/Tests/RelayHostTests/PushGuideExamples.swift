import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRelay
import Testing

/// A relay's channel rosters for the matcher: who may be woken by an event of a channel.
struct ChannelRoster: RosterSource {
  /// Channel id → member pubkeys; a channel absent here has no roster, so it wakes no one.
  var members: [String: Set<String>]

  func members(ofChannel channel: String, origin: String) -> Set<String>? { members[channel] }
}

/// The compiled examples of the push guides in `Docs/` (`EnrollingFromAnApp.md`,
/// `VendoringPushRelay.md`, `TestingWithTheGatewayFixture.md`), checked against them by
/// `DocumentationDriftTests`.
@Suite(.timeLimit(.minutes(1))) struct PushGuideExamples {
  /// The demo relay's descriptor, push key and key id (test keys, `Fixtures/demo/keys.json`).
  static let demoFolder = packageRoot.appendingPathComponent("Fixtures/demo")
  static let pushKey = try! SecretKey(hex: "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
  static let keyID = "demo-2026-01"
  static let profile = PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")

  static func descriptor() throws -> PushDescriptor {
    try PushDescriptor(
      strictJSON: Array(try Data(contentsOf: demoFolder.appendingPathComponent("nip11.json"))))
  }

  static func temporaryFile(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
  }

  /// The channel the guides' messages are sent in.
  static let channel = "5c1c2a4e-8f3b-4c2d-9a7e-1b2c3d4e5f60"

  static func mention(of account: String, by sender: SecretKey, at now: Int64, _ content: String) throws
    -> Event
  {
    try UnsignedEvent(
      pubkey: sender.publicKeyHex, createdAt: now, kind: 9, tags: [["h", channel], ["p", account]],
      content: content
    )
    .signed(with: sender)
  }

  /// The relay's push side on a SQLite file at `statePath`, on `clock`, delivering to `gateway`,
  /// with one accepted lease of a fresh account for `grant` and one wake from a mention of it in a
  /// channel both are members of: the outbox's `request_id`s.
  static func relayWithOneWake(
    statePath: String, clock: ManualUnixClock, grant: String, gateway: GatewayClient
  ) throws -> (push: PushRelay, store: SQLiteLeaseStore, outbox: SQLiteWakeOutbox, requestIDs: [String]) {
    let descriptor = try descriptor()
    let account = SecretKey.generate()
    let sender = SecretKey.generate()
    let database = try PushStateDatabase(path: statePath)
    let store = SQLiteLeaseStore(database: database)
    let outbox = SQLiteWakeOutbox(database: database)
    let roster = ChannelRoster(members: [channel: [account.publicKeyHex, sender.publicKeyHex]])
    let push = try PushRelay(
      validator: try LeaseValidator(descriptor: descriptor, pushKeys: [keyID: pushKey]), store: store,
      outbox: outbox, descriptor: descriptor, roster: roster, gateway: gateway, clock: clock.clock)
    let lease = try LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
      endpoint: grant,
      subscriptions: try SubscriptionPlanner(descriptor: descriptor).plan(
        for: account.publicKeyHex, joined: [], muted: [], mentionsOnly: true),
      generation: 1, createdAt: clock.seconds, installationID: .generate(), now: clock.seconds,
      signer: account)
    #expect(try push.ingestLease(#require(VerifiedEvent(lease)), identity: account.publicKeyHex).accepted)
    let message = try mention(of: account.publicKeyHex, by: sender, at: clock.seconds, "ping")
    try push.didStore(message, receivedAt: clock.seconds)
    return (push, store, outbox, try outbox.wakes().map(\.requestID))
  }

  @Test func enrollsRotatesAndRevokesAgainstAPushRelay() async throws {
    let now: Int64 = 1_767_226_200
    let account = SecretKey.generate()
    let sender = SecretKey.generate()
    let deviceToken = "a1b2c3d4"
    let stateFile = Self.temporaryFile("enrollment").appendingPathExtension("json")
    defer { try? FileManager.default.removeItem(at: stateFile) }
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(now: now))
    let server = RelayFixtureServer(
      data: try RelayFixtureData.load(folder: Self.demoFolder),
      configuration: RelayFixtureConfiguration(now: now, push: RelayFixturePushMode(pushKey: Self.pushKey)))
    let relayURL = try await server.start().absoluteString
    try await server.serving {
      // README example: begin
      // Persist one LeaseEnrollment per (origin, account); here a JSON file.
      func loadEnrollment() -> LeaseEnrollment? {
        try? JSONDecoder().decode(LeaseEnrollment.self, from: Data(contentsOf: stateFile))
      }
      func save(_ enrollment: LeaseEnrollment) throws {
        try JSONEncoder().encode(enrollment).write(to: stateFile, options: .atomic)
      }
      // Publish to push.origin over WebSocket, answering the relay's NIP-42 challenge as the account.
      func publish(_ event: Event, to origin: String) async throws -> PublishResult {
        let connection = try await RelayConnection.connect(
          to: origin, key: account, clock: { now }, deadline: .now + .seconds(10))  // clock: dates AUTH
        let result = try await connection.publish(event, deadline: .now + .seconds(10))  // the OK
        await connection.close()
        return result
      }

      // 1. Discover: the relay's NIP-11, its push descriptor validated strictly.
      let descriptor = try await PushDiscovery().discover(relay: relayURL).push
      let pushKey = descriptor.currentKey!.pubkey  // a valid descriptor has exactly one current key
      let profile = PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")  // one it advertises

      // 2. A grant from your gateway for this device token, for the relay's current push key.
      var grant = try gateway.issueGrant(relayPubkey: pushKey, deviceToken: deviceToken)

      // 3. The enrollment: loaded, or created once (a fresh installation id, the lease's `d`).
      var enrollment =
        loadEnrollment() ?? LeaseEnrollment(origin: descriptor.origin, pubkey: account.publicKeyHex)
      enrollment.grantExpiresAt = grant.expiresAt
      var stamp = enrollment.next(now: now)
      try save(enrollment)  // before signing: no publish ever reuses a generation

      // 4. Plan, build, publish.
      let subscriptions = try SubscriptionPlanner(descriptor: descriptor).plan(
        for: account.publicKeyHex, joined: [], muted: [], mentionsOnly: true)
      let builder = LeaseBuilder(descriptor: descriptor, appProfile: profile)
      let lease = try builder.active(
        endpoint: grant.grant, subscriptions: subscriptions, generation: stamp.generation,
        createdAt: stamp.createdAt, installationID: enrollment.installationID,
        grantExpiresAt: grant.expiresAt, now: now, signer: account)
      let enrolled = try await publish(lease, to: descriptor.origin)
      // enrolled.accepted == true, enrolled.message == ""

      // 5. Token or grant rotated: the same `d`, the next generation.
      grant = try gateway.issueGrant(relayPubkey: pushKey, deviceToken: "e5f60718")
      enrollment.grantExpiresAt = grant.expiresAt
      stamp = enrollment.next(now: now)
      try save(enrollment)
      let rotated = try await publish(
        try builder.active(
          endpoint: grant.grant, subscriptions: subscriptions, generation: stamp.generation,
          createdAt: stamp.createdAt, installationID: enrollment.installationID,
          grantExpiresAt: grant.expiresAt, now: now, signer: account),
        to: descriptor.origin)
      // rotated.accepted == true: generation 2 replaced generation 1 at the same address
      // README example: end
      #expect(enrolled.accepted)
      #expect(enrolled.message == "")
      #expect(rotated.accepted)
      #expect(loadEnrollment()?.lastGeneration == 2)
      #expect(loadEnrollment()?.installationID == enrollment.installationID)

      // A mention of the account in a channel both are members of (the relay's own kind 39002
      // roster, signed by its NIP-11 `self`) wakes the rotated lease, once.
      try server.add([
        try UnsignedEvent(
          pubkey: Self.pushKey.publicKeyHex, createdAt: now, kind: 39002,
          tags: [["d", Self.channel], ["p", account.publicKeyHex], ["p", sender.publicKeyHex]], content: ""
        ).signed(with: Self.pushKey)
      ])
      let message = try Self.mention(of: account.publicKeyHex, by: sender, at: now, "are you there?")
      let connection = try await RelayConnection.connect(
        to: descriptor.origin, key: sender, clock: { now }, deadline: .now + .seconds(10))
      #expect(try await connection.publish(message, deadline: .now + .seconds(10)).accepted)
      await connection.close()
      let wakes = try server.wakes()
      #expect(wakes.map(\.candidate.eventID) == [message.id])
      #expect(wakes.first?.candidate.generation == 2)
      #expect(wakes.first?.candidate.endpoint == grant.grant)

      // README example: begin
      // 6. Sign-out or push turned off: a tombstone with the next generation.
      stamp = enrollment.next(now: now)
      try save(enrollment)
      let revoked = try await publish(
        try LeaseBuilder(descriptor: descriptor).tombstone(
          installationID: enrollment.installationID, generation: stamp.generation,
          createdAt: stamp.createdAt, now: now, signer: account),
        to: descriptor.origin)
      // revoked.accepted == true; from now on nothing wakes this device
      // README example: end
      #expect(revoked.accepted)
      #expect(stamp.generation == 3)
      let late = try Self.mention(of: account.publicKeyHex, by: sender, at: now, "still there?")
      let again = try await RelayConnection.connect(
        to: descriptor.origin, key: sender, clock: { now }, deadline: .now + .seconds(10))
      #expect(try await again.publish(late, deadline: .now + .seconds(10)).accepted)
      await again.close()
      #expect(try server.wakes().map(\.candidate.eventID) == [message.id])
    }
  }

  @Test func wiresPushRelayIntoARelayByHand() async throws {
    let descriptor = try Self.descriptor()
    let (keyID, pushKey) = (Self.keyID, Self.pushKey)
    let statePath = Self.temporaryFile("push-state").path + ".sqlite"
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: statePath + suffix) }
    }
    let gateway = try GatewayFixture()
    let gatewayURL = try await gateway.start().absoluteString  // http://127.0.0.1:<port>
    try await gateway.serving {
      let account = SecretKey.generate()
      let sender = SecretKey.generate()
      let clock = UnixClock.system
      let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "a1b2c3d4")
      let lease = try LeaseBuilder(descriptor: descriptor, appProfile: Self.profile).active(
        endpoint: grant.grant,
        subscriptions: try SubscriptionPlanner(descriptor: descriptor).plan(
          for: account.publicKeyHex, joined: [], muted: [], mentionsOnly: true),
        generation: 1, createdAt: clock.now(), installationID: .generate(), now: clock.now(),
        signer: account)
      let message = try Self.mention(of: account.publicKeyHex, by: sender, at: clock.now(), "ping")
      let authenticated: String? = account.publicKeyHex  // the connection's NIP-42 identity
      let verified = try #require(VerifiedEvent(lease))  // your socket layer verified it once
      let channel = Self.channel
      // README example: begin
      // Once, at startup: one state file and the relay's push side over it.
      let database = try PushStateDatabase(path: statePath)
      let store = SQLiteLeaseStore(database: database)
      let outbox = SQLiteWakeOutbox(database: database)
      let roster = ChannelRoster(members: [channel: [account.publicKeyHex, sender.publicKeyHex]])
      let validator = try LeaseValidator(descriptor: descriptor, pushKeys: [keyID: pushKey])
      let client = try GatewayClient(baseURL: gatewayURL, transport: URLSessionHTTPTransport.shared)
      let push = try PushRelay(
        validator: validator, store: store, outbox: outbox, descriptor: descriptor, roster: roster,
        gateway: client, clock: clock)
      // throws invalid_configuration (field nip11.json) when the state holds this origin's leases of the
      // other protocol generation (nip-pl / buzz-push-v1): they are not portable; start from an empty state
      let worker = Task { await push.run() }  // delivers, woken by every enqueue, until push.stop()

      // EVENT handler, kind 30350 (id and signature verified once): the OK; never store it yourself.
      let answer = try push.ingestLease(verified, identity: authenticated)
      // answer.accepted == true, answer.message == "" → ["OK", lease.id, true, ""]

      // Any other kind, once stored, and again when a client resends one you already had:
      try push.didStore(message, receivedAt: clock.now())
      // a throw means ["OK", id, false, "error: internal server error"]; the resend completes it
      // README example: end
      #expect(answer.accepted)
      #expect(answer.message == "")
      #expect(await Polling.eventually(within: .seconds(10)) { gateway.deliveries().count == 1 })
      push.stop()
      await worker.value
      let requestIDs = try outbox.wakes().map(\.requestID)
      #expect(requestIDs.count == 1)
      #expect(gateway.deliveries().map(\.requestID) == requestIDs)
      #expect(try outbox.wakes().map(\.state) == [.delivered])
      let replay = try push.ingestLease(verified, identity: authenticated)
      #expect(replay.accepted)
      #expect(replay.message == "duplicate: already have this event")
      let stranger = try push.ingestLease(verified, identity: sender.publicKeyHex)
      #expect(stranger.message == "invalid: event pubkey does not match authenticated identity")
    }
  }

  @Test func retriesAScripted503WithTheSameRequestID() async throws {
    let pushKey = Self.pushKey
    let statePath = Self.temporaryFile("push-state").path + ".sqlite"
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: statePath + suffix) }
    }
    // README example: begin
    // One manual clock for the gateway and the relay's worker: a test moves it past a backoff.
    let clock = ManualUnixClock(seconds: 1_767_226_200)
    let gateway = try GatewayFixture(
      configuration: GatewayFixtureConfiguration(quota: 0), clock: { clock.seconds })
    let base = try await gateway.start()  // http://127.0.0.1:<a free port>
    try await gateway.serving {  // the test's body; stop() is awaited when it returns or throws
      let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "a1b2c3d4")

      // The next delivery is answered 503 and asks for 5 s; later ones get the default 200.
      gateway.script([GatewayScriptEntry(status: 503, body: #"{"status":"retry","retry_after_seconds":5}"#)])
      // README example: end
      let client = try GatewayClient(baseURL: base.absoluteString)
      let (push, _, _, enqueued) = try Self.relayWithOneWake(
        statePath: statePath, clock: clock, grant: grant.grant, gateway: client)
      #expect(enqueued.count == 1)
      // README example: begin
      // `push` is the relay's PushRelay on `clock`, delivering to `base`, with one wake enqueued.
      let first = try await push.deliverOnce()  // attempt 1: the scripted 503
      let early = try await push.deliverOnce()  // nothing is due yet: the clock has not moved
      clock.advance(by: .seconds(5))
      let second = try await push.deliverOnce()  // attempt 2, same request_id: accepted

      let requests = gateway.requests()  // every answered attempt: request_id, device_token, status
      let deliveries = gateway.deliveries()  // the APNs requests the gateway would have sent
      // requests.map(\.status) == [503, 200], both with one request_id;
      // deliveries.count == 1 and its headers["apns-id"] is that request_id
      // README example: end
      #expect(first.map(\.answer) == [.unavailable(retryAfterSeconds: 5)])
      #expect(early.isEmpty)
      #expect(second.map(\.answer) == [.accepted])
      #expect(second.map(\.attempt) == [2])
      #expect(requests.map(\.status) == [503, 200])
      #expect(requests.map(\.requestID) == [enqueued[0], enqueued[0]])
      #expect(requests.map(\.deviceToken) == ["a1b2c3d4", "a1b2c3d4"])
      #expect(deliveries.map(\.requestID) == [enqueued[0]])
      #expect(deliveries.first?.headers["apns-id"] == enqueued[0])
      #expect(deliveries.first?.body == GatewayFixture.apnsBody)
    }
  }

  @Test func disablesTheEndpointOnAScripted410() async throws {
    let descriptor = try Self.descriptor()
    let pushKey = Self.pushKey
    let statePath = Self.temporaryFile("push-state").path + ".sqlite"
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: statePath + suffix) }
    }
    let clock = ManualUnixClock(seconds: 1_767_226_200)
    let gateway = try GatewayFixture(clock: { clock.seconds })
    let base = try await gateway.start()
    try await gateway.serving {
      let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "a1b2c3d4")
      let (push, store, _, enqueued) = try Self.relayWithOneWake(
        statePath: statePath, clock: clock, grant: grant.grant,
        gateway: try GatewayClient(baseURL: base.absoluteString))
      #expect(enqueued.count == 1)
      // README example: begin
      // Only this device token's next attempt is answered 410 (the default invalid_endpoint body).
      gateway.script([GatewayScriptEntry(deviceToken: "a1b2c3d4", status: 410)])
      let attempts = try await push.deliverOnce()
      // attempts.map(\.outcome) == [.failed]: the wake is over and the lease's endpoint disabled,
      // so no event wakes that device until the app re-enrolls with a new grant
      // README example: end
      #expect(attempts.map(\.outcome) == [.failed])
      #expect(gateway.requests().map(\.status) == [410])
      #expect(gateway.deliveries().isEmpty)
      #expect(try store.liveLeases(origin: descriptor.origin, now: clock.seconds).isEmpty)
    }
  }
}
