import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushDescriptor
import PushLease
import PushRelay
import Testing

/// `PushRelay`, the one entry point: idempotent `didStore`, bounded rows, expiry, index-served
/// statements, durability, and a worker woken by the enqueue rather than a timer.
@Suite(.timeLimit(.minutes(1))) struct PushRelayEntryTests {
  @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote))
  func runsThePostgreSQLCasesToo() {
    #expect(StoreBackend.available == [.sqlite, .postgres])
  }

  @Test func servesEveryStoreAndOutboxStatementFromAnIndex() throws {
    let path = Demo.temporaryPath()
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let database = try PushStateDatabase(path: path)
    for (name, sql) in PushStatements.all {
      let plan = try database.queryPlan(sql)
      let scans = plan.filter { detail in
        detail.hasPrefix("SCAN") && (detail.contains("push_lease") || detail.contains("push_wake"))
      }
      #expect(scans.isEmpty, "\(name): \(plan)")
      if sql.contains("WHERE") {
        #expect(plan.contains { $0.hasPrefix("SEARCH") }, "\(name): \(plan)")
      }
      // An author's statements narrow on (origin, pubkey), never on (origin, active).
      if sql.contains("pubkey = ?") && sql.contains("FROM push_lease") || sql.hasPrefix("UPDATE push_lease") {
        #expect(plan.contains { $0.contains("pubkey=?") }, "\(name): \(plan)")
      }
    }
  }

  @Test func refusesAMemoryDatabaseAndRunsWALWithFullSync() throws {
    for path in [":memory:", ""] {
      let error = try #require(throws: PushRelayError.self) { _ = try PushStateDatabase(path: path) }
      #expect(error.code == .invalidConfiguration)
      #expect(error.field == "state")
    }
    let path = Demo.temporaryPath()
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let settings = try PushStateDatabase(path: path).durability()
    #expect(settings.journalMode == "wal")
    #expect(settings.synchronous == 2)
  }

  @Test(arguments: StoreBackend.available) func refusesTombstonesPastFourTimesTheLeaseQuota(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let maxLeases = Demo.descriptor.limitation.maxLeasesPerPubkey
      var accepted = 0
      var refusals: Set<String> = []
      for _ in 0..<40 {
        let answer = try world.publish(lease: Demo.tombstone(generation: 1, d: .generate()))
        if answer.accepted { accepted += 1 } else { refusals.insert(answer.message) }
      }
      #expect(accepted == 4 * maxLeases)
      #expect(refusals == ["invalid: lease quota exceeded"])
      #expect(try world.store.allLeases(origin: Demo.origin).count == 4 * maxLeases)
    }
  }

  @Test(arguments: StoreBackend.available) func prunesInactiveRowsADayPastTheirExpiry(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let now = world.clock.seconds
      let soon = try LeaseBuilder(descriptor: Demo.descriptor, appProfile: Demo.profile).active(
        endpoint: try world.grant(), subscriptions: Demo.plan(), generation: 1, createdAt: now,
        installationID: .generate(), grantExpiresAt: now + 600, now: now, signer: Demo.account)
      #expect(try world.publish(lease: soon).accepted)
      world.clock.advance(by: .seconds(600))
      let later = world.clock.seconds
      // The next accept by the author sweeps the expired row inactive; one more than a day later,
      // the next one prunes it.
      let other = Demo.lease(endpoint: "other", generation: 1, createdAt: later, d: .generate(), now: later)
      #expect(try world.publish(lease: other).accepted)
      #expect(
        try world.store.allLeases(origin: Demo.origin).map(\.active).sorted { !$0 && $1 } == [false, true])
      world.clock.advance(by: .seconds(86_401))
      let latest = world.clock.seconds
      let third = Demo.lease(endpoint: "third", generation: 1, createdAt: latest, d: .generate(), now: latest)
      #expect(try world.publish(lease: third).accepted)
      #expect(try world.store.allLeases(origin: Demo.origin).filter { $0.eventID == soon.id }.isEmpty)
    }
  }

  @Test(arguments: StoreBackend.available) func neverMatchesALeasePastItsExpiry(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let now = world.clock.seconds
      let lease = try LeaseBuilder(descriptor: Demo.descriptor, appProfile: Demo.profile).active(
        endpoint: try world.grant(), subscriptions: Demo.plan(), generation: 1, createdAt: now,
        installationID: .generate(), grantExpiresAt: now + 600, now: now, signer: Demo.account)
      #expect(try world.publish(lease: lease).accepted)
      #expect(try world.publish(world.mention()).count == 1)
      world.clock.advance(by: .seconds(600))
      #expect(try world.store.liveLeases(origin: Demo.origin, now: world.clock.seconds).isEmpty)
      #expect(try world.publish(world.mention()).isEmpty)
      #expect(try world.outbox.wakes().count == 1)
    }
  }

  @Test(arguments: StoreBackend.available) func answersAStoreFailureAndWakesTheRetriedEventOnce(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      #expect(
        try world.publish(lease: Demo.lease(endpoint: try world.grant(), generation: 1, d: .generate()))
          .accepted)
      let message = world.mention()
      // The outbox refuses the insert: the event's record rolls back with its wakes.
      try world.execute(
        sqlite:
          "CREATE TRIGGER refuse_wake BEFORE INSERT ON push_wake BEGIN SELECT RAISE(ABORT, 'injected'); END",
        postgres: """
          CREATE FUNCTION refuse_wake() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          RAISE EXCEPTION 'injected'; END $$;
          CREATE TRIGGER refuse_wake BEFORE INSERT ON push_wake FOR EACH ROW EXECUTE FUNCTION refuse_wake();
          """)
      let error = try #require(throws: PushRelayError.self) {
        try world.relay.didStore(message, receivedAt: world.clock.seconds)
      }
      #expect(error.code == .storage)
      #expect(try world.outbox.wakes().isEmpty)
      try world.execute(sqlite: "DROP TRIGGER refuse_wake", postgres: "DROP TRIGGER refuse_wake ON push_wake")
      // The client retries (the relay already has the event): woken now, and exactly once.
      try world.relay.didStore(message, receivedAt: world.clock.seconds)
      try world.relay.didStore(message, receivedAt: world.clock.seconds)
      let wakes = try world.outbox.wakes()
      #expect(wakes.map(\.candidate.eventID) == [message.id])
    }
  }

  @Test(arguments: StoreBackend.available) func matchesARecordedEventOnlyOnce(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let message = world.mention()
      try world.relay.didStore(message, receivedAt: world.clock.seconds)
      // A lease accepted after the event meets it through back-fill, once.
      #expect(
        try world.publish(lease: Demo.lease(endpoint: try world.grant(), generation: 1, d: .generate()))
          .accepted)
      #expect(try world.outbox.wakes().map(\.candidate.eventID) == [message.id])
      try world.relay.didStore(message, receivedAt: world.clock.seconds)
      #expect(try world.outbox.wakes().count == 1)
    }
  }

  @Test(arguments: StoreBackend.available) func deliversOnTheEnqueueSignalWithALongFallbackTimer(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      // The longest gateway timeout: on this test's fixed clock a timed-out attempt's retry never
      // comes due, so a slow machine must not turn a late answer into a missing wake.
      let gateway = try GatewayClient(baseURL: world.client.baseURL, timeout: .seconds(10))
      let relay = try PushRelay(
        validator: world.validator, store: world.store, outbox: world.outbox, descriptor: Demo.descriptor,
        roster: world.roster, gateway: gateway, clock: world.clock.clock, fallbackInterval: .seconds(60))
      let running = Task { await relay.run() }
      // 40 accounts' leases, one message mentioning them all: more than two full batches of 16.
      var mentions: [[String]] = [["h", Demo.channel]]
      var members: Set<String> = [Demo.alice.publicKeyHex]
      for index in 0..<40 {
        let key = SecretKey.generate()
        members.insert(key.publicKeyHex)
        mentions.append(["p", key.publicKeyHex])
        let subscriptions = [
          LeaseSubscription(filter: LeaseFilter(kinds: [9], pTags: [key.publicKeyHex]), pushClass: "default")
        ]
        let lease = Demo.lease(
          endpoint: try world.grant(token: String(format: "%08x", index)), generation: 1, d: .generate(),
          subscriptions: subscriptions, by: key)
        #expect(
          try relay.ingestLease(try #require(VerifiedEvent(lease)), identity: key.publicKeyHex).accepted)
      }
      world.roster.set(Demo.channel, members)
      let message = Demo.event(tags: mentions)
      try relay.didStore(message, receivedAt: world.clock.seconds)
      let delivered = await Polling.eventually(within: .seconds(20)) {
        world.gateway.deliveries().count == 40
      }
      relay.stop()
      await running.value
      #expect(delivered)
      #expect(try world.outbox.wakes().allSatisfy { $0.state == .delivered })
    }
  }
}
