import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushLease
import PushRelay
import PushRelayPostgres
import Testing
import _NostrPostgres

/// `Docs/VendoringPushRelay.md` §PostgreSQL's tests, each across real processes (this test process and
/// `PushRelayPostgresHelper` processes) on one database of the test's own, on the system clock.
@Suite(
  .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote), .timeLimit(.minutes(2)))
struct PostgresMultiProcessTests {
  /// Now, in Unix seconds: every process of these tests is on the system clock.
  static var now: Int64 { UnixClock.system.now() }

  /// This process's relay on `database`: store, outbox on the database clock, listener.
  static func relay(
    _ database: PostgresDatabase, gateway: GatewayClient? = nil, fenceMilliseconds: Int64 = 30_000,
    roster: any RosterSource = TestRoster(channels: [
      Demo.channel: [Demo.account.publicKeyHex, Demo.alice.publicKeyHex]
    ]), fallback: Duration = .seconds(60)
  ) throws -> (PushRelay, PostgresWakeListener, PostgresWakeOutbox) {
    let listener = try PostgresWakeListener(database: database)
    let outbox = try PostgresWakeOutbox(
      database: database, clock: .database, fenceMilliseconds: fenceMilliseconds)
    let relay = try PushRelay(
      validator: try LeaseValidator(descriptor: Demo.descriptor, pushKeys: [Demo.keyID: Demo.relayKey]),
      store: try PostgresLeaseStore(database: database), outbox: outbox, descriptor: Demo.descriptor,
      roster: roster, gateway: gateway, wakeSignal: listener, fallbackInterval: fallback)
    return (relay, listener, outbox)
  }

  /// A lease of `key` woken by mentions of it, at the current time.
  static func lease(
    of key: SecretKey = Demo.account, endpoint: String, generation: Int64 = 1,
    d: InstallationID = .generate(),
    createdAt: Int64 = now
  ) -> Event {
    let subscriptions = [
      LeaseSubscription(filter: LeaseFilter(kinds: [9], pTags: [key.publicKeyHex]), pushClass: "default")
    ]
    return Demo.lease(
      endpoint: endpoint, generation: generation, createdAt: createdAt, d: d, now: createdAt,
      subscriptions: subscriptions, by: key)
  }

  /// Alice's message in the demo channel mentioning `key`, now.
  static func mention(of key: SecretKey = Demo.account, content: String = "hi") -> Event {
    Demo.event(createdAt: now, tags: [["h", Demo.channel], ["p", key.publicKeyHex]], content: content)
  }

  static func wakes(_ database: PostgresTestDatabase, event: Event) throws -> [[String?]] {
    try database.rows("SELECT request_id, state FROM push_wake WHERE event_id = $1", [event.id])
  }

  @Test func aLeaseAcceptedByOneProcessIsMatchedByAnother() async throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    _ = try database.open()
    let a = try await PostgresRelayProcess.start(database)
    let b = try await PostgresRelayProcess.start(database)
    // B builds its index first (an unrelated store), so the lease reaches it through the change log.
    #expect(try await b.store(Self.mention(of: Demo.alice)) == "stored")
    #expect(try await a.accept([Self.lease(endpoint: "grant-a")]) == ["accepted "])
    let message = Self.mention()
    #expect(try await b.store(message) == "stored")
    #expect(try Self.wakes(database, event: message).map { $0[1] } == ["pending"])
    #expect(await a.quit().status == 0)
    #expect(await b.quit().status == 0)
  }

  @Test func racingAcceptAndStoreWakeExactlyOnceIn200Rounds() async throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    let opened = try database.open()
    let roster = MutableRoster([Demo.channel: [Demo.alice.publicKeyHex]])
    let (relay, listener, _) = try Self.relay(opened, roster: roster)
    defer { listener.close() }
    let storing = try await PostgresRelayProcess.start(database)
    var events: [String] = []
    for round in 0..<200 {
      let key = SecretKey.generate()
      var members = roster.members(ofChannel: Demo.channel, origin: Demo.origin) ?? []
      members.insert(key.publicKeyHex)
      roster.set(Demo.channel, members)
      let lease = try #require(VerifiedEvent(Self.lease(of: key, endpoint: "grant-\(round)")))
      let message = Self.mention(of: key, content: "round \(round)")
      events.append(message.id)
      // The store goes out first; the accept runs here while the other process handles it.
      async let stored = storing.store(message, members: [key.publicKeyHex])
      let answer = try await BlockingWork.run { () throws(PushRelayError) in
        try relay.ingestLease(lease, identity: key.publicKeyHex)
      }
      #expect(answer.accepted && answer.message.isEmpty, "round \(round): \(answer.message)")
      #expect(try await stored == "stored", "round \(round)")
    }
    let counts = try database.rows("SELECT event_id, COUNT(*) FROM push_wake GROUP BY event_id")
    let byEvent = Dictionary(uniqueKeysWithValues: counts.map { ($0[0] ?? "", $0[1] ?? "") })
    #expect(byEvent.count == 200)
    #expect(events.filter { byEvent[$0] != "1" }.isEmpty, "events without exactly one wake")
    #expect(await storing.quit().status == 0)
  }

  @Test func twoWorkerProcessesDeliver1000WakesEachRequestIDOnce() async throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    let opened = try database.open()
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      let base = try #require(gateway.baseURL).absoluteString.trimmingSuffix("/")
      let grant = try gateway.issueGrant(relayPubkey: Demo.relayKey.publicKeyHex, deviceToken: "feedface")
        .grant
      let (relay, listener, outbox) = try Self.relay(opened)
      defer { listener.close() }
      let d = InstallationID.generate()
      let lease = Self.lease(endpoint: grant, d: d)
      #expect(try relay.ingestLease(try #require(VerifiedEvent(lease)), identity: lease.pubkey).accepted)
      let workers = [
        try await PostgresRelayProcess.start(database, gateway: String(base)),
        try await PostgresRelayProcess.start(database, gateway: String(base)),
      ]
      let address = LeaseAddress(origin: Demo.origin, pubkey: Demo.account.publicKeyHex, d: d.rawValue)
      let hash = Hex.encode(NostrSHA256.hash(Array(grant.utf8)))
      var enqueued: Set<String> = []
      for batch in 0..<10 {
        let candidates = (0..<100).map { index in
          WakeCandidate(
            address: address, generation: 1, keyID: Demo.keyID, endpoint: grant, endpointHash: hash,
            transport: "apns", eventID: Hex.encode(NostrSHA256.hash(Array("\(batch)-\(index)".utf8))),
            channel: nil,
            pushClass: "default", expiresAt: Self.now + 3000)
        }
        enqueued.formUnion(try outbox.enqueue(candidates, nowMilliseconds: Self.now * 1000))
      }
      #expect(enqueued.count == 1000)
      let delivered = await Polling.eventually(within: .seconds(90), every: .milliseconds(50)) {
        gateway.requestCount() >= 1000
      }
      #expect(delivered)
      let requested = gateway.requests().map(\.requestID)
      #expect(requested.count == 1000)
      // Counts, not the sets: a failure should not print 1000 ids.
      #expect(Set(requested).count == 1000)
      #expect(Set(requested).subtracting(enqueued).count == 0)
      #expect(Set(gateway.deliveries().map(\.requestID)).intersection(enqueued).count == 1000)
      // The gateway has answered the last requests; their workers record the outcomes just after,
      // and `quit` exits at once (seen under load: rows still sending when the workers quit).
      #expect(
        await Polling.eventually(within: .seconds(30), every: .milliseconds(50)) {
          (try? database.rows("SELECT state, COUNT(*) FROM push_wake GROUP BY state"))?.map {
            $0.compactMap { $0 }
          }
            == [["delivered", "1000"]]
        })
      for worker in workers { #expect(await worker.quit().status == 0) }
      let states = try database.rows("SELECT state, COUNT(*) FROM push_wake GROUP BY state")
      #expect(states.map { $0.compactMap { $0 } } == [["delivered", "1000"]])
    }
  }

  @Test func aWorkerKilledHoldingAClaimIsReclaimedAfterItsFenceWithTheSameRequestID() async throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    let opened = try database.open()
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      let base = try #require(gateway.baseURL).absoluteString.trimmingSuffix("/")
      let grant = try gateway.issueGrant(relayPubkey: Demo.relayKey.publicKeyHex, deviceToken: "c0ffee").grant
      let fence: Int64 = 10_000
      let (relay, listener, outbox) = try Self.relay(opened, fenceMilliseconds: fence)
      defer { listener.close() }
      let lease = Self.lease(endpoint: grant)
      #expect(try relay.ingestLease(try #require(VerifiedEvent(lease)), identity: lease.pubkey).accepted)
      try relay.didStore(Self.mention(), receivedAt: Self.now)
      let requestID = try #require(try outbox.wakes().first?.requestID)
      // The first answer is held 30 s, so the worker is inside the exchange when it is killed.
      gateway.script([GatewayScriptEntry(status: 503, delayMilliseconds: 30_000)])
      let worker = try await PostgresRelayProcess.start(
        database, gateway: String(base), fenceMilliseconds: fence)
      #expect(await Polling.eventually(within: .seconds(20)) { !gateway.requests().isEmpty })
      let killed = await worker.kill()
      #expect(killed.killedBySignal)
      let dead = try #require(try outbox.wakes().first)
      #expect(dead.requestID == requestID && dead.state == .sending && dead.attempts == 1)
      // Before the fence nothing is claimable; after it, the same request id on attempt 2.
      #expect(try outbox.claim(nowMilliseconds: 0, limit: 16).isEmpty)
      var reclaimed: [Wake] = []
      let cameBack = await Polling.eventually(within: .seconds(30), every: .milliseconds(100)) {
        reclaimed = (try? outbox.claim(nowMilliseconds: 0, limit: 16)) ?? []
        return !reclaimed.isEmpty
      }
      #expect(cameBack)
      #expect(reclaimed.map(\.requestID) == [requestID])
      #expect(reclaimed.map(\.attempts) == [2])
      // The dead claim's late outcome is refused; the live claim's is written.
      #expect(try !outbox.record(.delivered, for: dead, status: 200, nowMilliseconds: 0))
      #expect(try outbox.record(.delivered, for: reclaimed[0], status: 200, nowMilliseconds: 0))
      #expect(try outbox.wakes().map(\.state) == [.delivered])
    }
  }

  @Test func anEnqueueInAnotherProcessIsDeliveredWithin2SecondsAlsoAfterTheListenerIsTerminated() async throws
  {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    let opened = try database.open()
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      let base = try #require(gateway.baseURL).absoluteString.trimmingSuffix("/")
      let grant = try gateway.issueGrant(relayPubkey: Demo.relayKey.publicKeyHex, deviceToken: "beef").grant
      let client = try GatewayClient(baseURL: String(base), transport: URLSessionHTTPTransport())
      // A 60 s fallback timer: only the NOTIFY can deliver within 2 s.
      let (relay, listener, _) = try Self.relay(opened, gateway: client, fallback: .seconds(60))
      defer { listener.close() }
      let lease = Self.lease(endpoint: grant)
      #expect(try relay.ingestLease(try #require(VerifiedEvent(lease)), identity: lease.pubkey).accepted)
      let running = Task { await relay.run() }
      let other = try await PostgresRelayProcess.start(database)
      #expect(try await other.store(Self.mention(content: "first")) == "stored")
      #expect(await Polling.eventually(within: .seconds(2)) { gateway.deliveries().count == 1 })

      let admin = try PostgresConnection(connectionString: database.connectionString)
      defer { admin.close() }
      try admin.query("SELECT pg_terminate_backend($1)", [String(listener.backendProcessID)])
      #expect(await Polling.eventually(within: .seconds(20)) { listener.connections == 2 })
      #expect(try await other.store(Self.mention(content: "second")) == "stored")
      #expect(await Polling.eventually(within: .seconds(2)) { gateway.deliveries().count == 2 })
      relay.stop()
      await running.value
      #expect(await other.quit().status == 0)
    }
  }

  @Test func concurrentAcceptsByOneAuthorFromTwoProcessesHaveOneWinnerPerGeneration() async throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    _ = try database.open()
    let first = try await PostgresRelayProcess.start(database)
    let second = try await PostgresRelayProcess.start(database)
    let d = InstallationID.generate()
    let start = Self.now - 200
    func leases(_ variant: String) -> [Event] {
      (1...50).map { generation in
        Self.lease(
          endpoint: "grant-\(variant)-\(generation)", generation: Int64(generation), d: d,
          createdAt: start + Int64(generation))
      }
    }
    let firstLeases = leases("a")
    let secondLeases = leases("b")
    async let firstAnswers = first.accept(firstLeases)
    async let secondAnswers = second.accept(secondLeases)
    let answers = try await [firstAnswers, secondAnswers]
    let allowed: Set<String> = [
      "accepted ", "refused invalid: stale generation", "refused invalid: stale replacement",
    ]
    #expect(
      answers.joined().allSatisfy { allowed.contains($0) },
      "\(answers.joined().filter { !allowed.contains($0) })")
    var winners: [Int: Int] = [:]
    for answerList in answers {
      for (index, answer) in answerList.enumerated() where answer == "accepted " {
        winners[index + 1, default: 0] += 1
      }
    }
    #expect(winners.values.allSatisfy { $0 == 1 })
    let stored = try database.rows("SELECT generation, event_id FROM push_lease")
    let top = try #require(winners.keys.max())
    #expect(stored.first?[0] == String(top))
    let topIDs = [firstLeases[top - 1].id, secondLeases[top - 1].id]
    #expect(topIDs.contains(stored.first?[1] ?? ""))
    #expect(await first.quit().status == 0)
    #expect(await second.quit().status == 0)
  }
}
