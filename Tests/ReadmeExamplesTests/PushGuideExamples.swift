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

  static func mention(of account: String, by sender: SecretKey, at now: Int64, _ content: String) throws
    -> Event
  {
    try UnsignedEvent(
      pubkey: sender.publicKeyHex, createdAt: now, kind: 9, tags: [["p", account]], content: content
    )
    .signed(with: sender)
  }

  /// The relay's parts on a SQLite file at `statePath`, on `clock`, with one accepted lease of a
  /// fresh account for `grant` and one wake from a mention of it: the outbox's `request_id`s.
  static func relayWithOneWake(
    statePath: String, clock: ManualUnixClock, grant: String, roster: ChannelRoster
  ) throws -> (store: SQLiteLeaseStore, outbox: SQLiteWakeOutbox, requestIDs: [String]) {
    let descriptor = try descriptor()
    let account = SecretKey.generate()
    let database = try PushStateDatabase(path: statePath)
    let matcher = PushMatcher(pushKinds: Set(descriptor.pushKinds))
    let store = SQLiteLeaseStore(database: database, matcher: matcher)
    let outbox = SQLiteWakeOutbox(database: database)
    let ingest = PushIngest(
      validator: try LeaseValidator(descriptor: descriptor, pushKeys: [keyID: pushKey]), store: store,
      roster: roster, descriptor: descriptor, clock: clock.clock)
    let lease = try LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
      endpoint: grant,
      subscriptions: try SubscriptionPlanner(descriptor: descriptor).plan(
        for: account.publicKeyHex, joined: [], muted: [], mentionsOnly: true),
      generation: 1, createdAt: clock.seconds, installationID: .generate(), now: clock.seconds,
      signer: account)
    #expect(try ingest.ingest(lease, identity: account.publicKeyHex, recent: []).accepted)
    let message = try mention(of: account.publicKeyHex, by: .generate(), at: clock.seconds, "ping")
    let requestIDs = try outbox.enqueue(
      matcher.candidates(
        for: message, index: try store.liveIndex(origin: descriptor.origin), roster: roster,
        origin: descriptor.origin, now: clock.seconds),
      nowMilliseconds: clock.milliseconds)
    return (store, outbox, requestIDs)
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

      // A mention of the account wakes the rotated lease, once.
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
      let recentEvents: [Event] = []  // events received in the last 120 s, newest first
      // README example: begin
      // Once, at startup: one state file, the push keys by id, and the parts over them.
      let database = try PushStateDatabase(path: statePath)
      let matcher = PushMatcher(pushKinds: Set(descriptor.pushKinds))
      let store = SQLiteLeaseStore(database: database, matcher: matcher)
      let outbox = SQLiteWakeOutbox(database: database)
      let roster = ChannelRoster(members: [:])  // your channel memberships
      let validator = try LeaseValidator(descriptor: descriptor, pushKeys: [keyID: pushKey])
      let ingest = PushIngest(
        validator: validator, store: store, roster: roster, descriptor: descriptor, clock: clock)
      let client = try GatewayClient(baseURL: gatewayURL, transport: URLSessionHTTPTransport.shared)
      let worker = DeliveryWorker(
        store: store, outbox: outbox, client: client, pushKeys: [keyID: pushKey], roster: roster,
        clock: clock)

      // EVENT handler, kind 30350: ingest answers the OK (steps 1–7); never store it yourself.
      let answer = try ingest.ingest(lease, identity: authenticated, recent: recentEvents)
      // answer.accepted == true, answer.message == "" → ["OK", lease.id, true, ""]

      // EVENT handler, any other kind, once the event is stored: match it, enqueue its wakes.
      let index = try store.liveIndex(origin: descriptor.origin)
      let candidates = matcher.candidates(
        for: message, index: index, roster: roster, origin: descriptor.origin, now: clock.now())
      let requestIDs = try outbox.enqueue(candidates, nowMilliseconds: clock.nowMilliseconds())

      // The worker runs on its own task (`await worker.run()`); one sweep here:
      let attempts = try await worker.runOnce()
      // attempts.map(\.answer) == [.accepted]; the gateway recorded one APNs request
      // README example: end
      #expect(answer == IngestAnswer(accepted: true, message: ""))
      #expect(requestIDs.count == 1)
      #expect(attempts.map(\.answer) == [.accepted])
      #expect(gateway.deliveries().map(\.requestID) == requestIDs)
      #expect(try outbox.wakes().map(\.state) == [.delivered])
      let replay = try ingest.ingest(lease, identity: authenticated, recent: recentEvents)
      #expect(replay == IngestAnswer(accepted: true, message: "duplicate: already have this event"))
      let stranger = try ingest.ingest(lease, identity: sender.publicKeyHex, recent: [])
      #expect(stranger.message == "invalid: event pubkey does not match authenticated identity")
    }
  }

  @Test func retriesAScripted503WithTheSameRequestID() async throws {
    let (keyID, pushKey) = (Self.keyID, Self.pushKey)
    let statePath = Self.temporaryFile("push-state").path + ".sqlite"
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: statePath + suffix) }
    }
    let roster = ChannelRoster(members: [:])
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
      let (store, outbox, enqueued) = try Self.relayWithOneWake(
        statePath: statePath, clock: clock, grant: grant.grant, roster: roster)
      #expect(enqueued.count == 1)
      // README example: begin
      let client = try GatewayClient(baseURL: base.absoluteString)
      let worker = DeliveryWorker(
        store: store, outbox: outbox, client: client, pushKeys: [keyID: pushKey], roster: roster,
        clock: clock.clock)

      let first = try await worker.runOnce()  // attempt 1: the scripted 503
      let early = try await worker.runOnce()  // nothing is due yet: the clock has not moved
      clock.advance(by: .seconds(5))
      let second = try await worker.runOnce()  // attempt 2, same request_id: accepted

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
    let (keyID, pushKey) = (Self.keyID, Self.pushKey)
    let statePath = Self.temporaryFile("push-state").path + ".sqlite"
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: statePath + suffix) }
    }
    let roster = ChannelRoster(members: [:])
    let clock = ManualUnixClock(seconds: 1_767_226_200)
    let gateway = try GatewayFixture(clock: { clock.seconds })
    let base = try await gateway.start()
    try await gateway.serving {
      let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "a1b2c3d4")
      let (store, outbox, enqueued) = try Self.relayWithOneWake(
        statePath: statePath, clock: clock, grant: grant.grant, roster: roster)
      #expect(enqueued.count == 1)
      let worker = DeliveryWorker(
        store: store, outbox: outbox, client: try GatewayClient(baseURL: base.absoluteString),
        pushKeys: [keyID: pushKey], roster: roster, clock: clock.clock)
      // README example: begin
      // Only this device token's next attempt is answered 410 (the default invalid_endpoint body).
      gateway.script([GatewayScriptEntry(deviceToken: "a1b2c3d4", status: 410)])
      let attempts = try await worker.runOnce()
      // attempts.map(\.outcome) == [.failed]: the wake is over and the lease's endpoint disabled,
      // so no event wakes that device until the app re-enrolls with a new grant
      // README example: end
      #expect(attempts.map(\.outcome) == [.failed])
      #expect(gateway.requests().map(\.status) == [410])
      #expect(gateway.deliveries().isEmpty)
      #expect(try store.liveLeases(origin: descriptor.origin, now: clock.seconds).isEmpty)
      #expect(try store.allLeases(origin: descriptor.origin).map(\.endpointEnabled) == [false])
    }
  }
}
