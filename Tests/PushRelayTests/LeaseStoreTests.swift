import Foundation
import NostrEvent
import NostrPushTestSupport
import PushLease
import PushRelay
import Testing

/// `PushIngest` steps 1–7 and every row of `LeaseStore.accept`'s table, on a real SQLite file and
/// (with `NOSTRPUSH_POSTGRES`) a real PostgreSQL database.
@Suite(.timeLimit(.minutes(1))) struct LeaseStoreTests {
  @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote))
  func runsThePostgreSQLCasesToo() {
    #expect(StoreBackend.available == [.sqlite, .postgres])
  }

  // MARK: Ingest, steps 1–6

  @Test(arguments: StoreBackend.available) func asksForAuthenticationFirst(backend: StoreBackend) async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let lease = Demo.lease(endpoint: "grant", generation: 1, d: .generate())
      let answer = try world.ingest.ingest(lease, identity: nil, recent: [])
      #expect(answer == IngestAnswer(accepted: false, message: "auth-required: not authenticated"))
    }
  }

  @Test(arguments: StoreBackend.available) func refusesAnotherAuthenticatedIdentity(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let lease = Demo.lease(endpoint: "grant", generation: 1, d: .generate())
      let answer = try world.ingest.ingest(lease, identity: Demo.alice.publicKeyHex, recent: [])
      #expect(answer.message == "invalid: event pubkey does not match authenticated identity")
      #expect(!answer.accepted)
    }
  }

  @Test(arguments: StoreBackend.available) func checksTheIDThenTheSignature(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let lease = Demo.lease(endpoint: "grant", generation: 1, d: .generate())
      var json = try #require(String(bytes: lease.jsonBytes(), encoding: .utf8))
      json = json.replacingOccurrences(of: "\"content\":\"", with: "\"content\":\"x")
      let tampered = try Event(json: json)
      let idAnswer = try world.ingest.ingest(tampered, identity: lease.pubkey, recent: [])
      #expect(
        idAnswer.message == "invalid: invalid event id: computed \(tampered.computedID()), got \(lease.id)")
      let badSig = String(lease.sig.prefix(127)) + (lease.sig.last == "0" ? "1" : "0")
      let forged = try Event(
        json: try #require(String(bytes: lease.jsonBytes(), encoding: .utf8)).replacingOccurrences(
          of: lease.sig, with: badSig))
      #expect(
        try world.ingest.ingest(forged, identity: lease.pubkey, recent: []).message
          == "invalid: invalid schnorr signature")
    }
  }

  /// At +900 s the clock check passes and the validator answers (a lease built on a clock 900 s
  /// ahead is `lease ttl too long` on the relay's).
  @Test(arguments: [
    (-901, "invalid: event timestamp too far from server time"), (-900, ""),
    (900, "invalid: lease ttl too long"),
    (901, "invalid: event timestamp too far from server time"),
  ])
  func boundsTheTimestampTo900Seconds(offset: Int64, message: String) async throws {
    try await withStarted(try await PushWorld()) { world async throws in
      let created = Demo.now + offset
      let lease = Demo.lease(
        endpoint: "grant", generation: 1, createdAt: created, d: .generate(), now: created)
      #expect(try world.publish(lease: lease).message == message)
    }
  }

  @Test(arguments: StoreBackend.available) func answersTheValidatorsRejection(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let note = Demo.event(kind: 30350, by: Demo.account, tags: [["d", "x"]])
      let answer = try world.publish(lease: note)
      #expect(answer == IngestAnswer(accepted: false, message: "invalid: missing expiration tag"))
      #expect(try world.store.allLeases(origin: Demo.origin).isEmpty)
    }
  }

  // MARK: The acceptance table

  @Test(arguments: StoreBackend.available) func acceptsANewLeaseAndStoresItsRow(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      let event = Demo.lease(endpoint: "grant-1", generation: 1, d: d)
      #expect(try world.publish(lease: event) == IngestAnswer(accepted: true, message: ""))
      let row = try #require(
        try world.store.lease(
          at: LeaseAddress(origin: Demo.origin, pubkey: Demo.account.publicKeyHex, d: d.rawValue)))
      #expect(row.eventID == event.id)
      #expect(row.active && row.endpointEnabled)
      #expect(row.endpoint == "grant-1")
      #expect(row.endpointHash == Hex.encode(NostrSHA256.hash(Array("grant-1".utf8))))
      #expect(row.keyID == Demo.keyID)
      #expect(row.subscriptions == Demo.plan())
      #expect(row.eventJSON == event.jsonBytes())
      #expect(try world.schemaVersion() == (backend == .sqlite ? 5 : 3))
    }
  }

  @Test(arguments: StoreBackend.available) func answersAnExactReplayAsADuplicate(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let event = Demo.lease(endpoint: "grant", generation: 1, d: .generate())
      try world.publish(lease: event)
      #expect(
        try world.publish(lease: event)
          == IngestAnswer(accepted: true, message: "duplicate: already have this event"))
    }
  }

  @Test(arguments: StoreBackend.available) func refusesASourceEventCollision(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let event = Demo.lease(endpoint: "grant", generation: 1, d: .generate())
      try world.publish(lease: event)
      var opened = try world.validator.open(event, tenantOrigin: Demo.origin, now: Demo.now)
      opened.address.d = "another"
      let answer = try world.store.accept(
        opened, event: event, maxLeases: 8, roster: world.roster, now: Demo.now)
      #expect(answer == .rejected("invalid: source event collision"))
      #expect(try world.store.allLeases(origin: Demo.origin).count == 1)
    }
  }

  @Test(arguments: StoreBackend.available) func refusesAnOlderReplacement(backend: StoreBackend) async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      try world.publish(lease: Demo.lease(endpoint: "grant", generation: 2, createdAt: Demo.now, d: d))
      let older = Demo.lease(
        endpoint: "grant", generation: 3, createdAt: Demo.now - 1, d: d, now: Demo.now - 1)
      #expect(try world.publish(lease: older).message == "invalid: stale replacement")
    }
  }

  @Test(arguments: StoreBackend.available) func breaksACreatedAtTieByTheLowerID(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      // Same created_at: only a lower id follows the stored event.
      // The stored event's id in the middle of the range, so lower and higher ids are both common.
      let first = try #require(
        (1...1000).lazy.map { Demo.lease(endpoint: "grant-a\($0)", generation: 1, d: d) }
          .first { "4" <= $0.id && $0.id < "c" })
      let later = (2...1000).lazy.map { Demo.lease(endpoint: "grant-\($0)", generation: 5, d: d) }
      try world.publish(lease: first)
      let lower = try #require(later.first { $0.id < first.id })
      let higher = try #require(later.first { $0.id > first.id })
      #expect(try world.publish(lease: higher).message == "invalid: stale replacement")
      #expect(try world.publish(lease: lower).accepted)
    }
  }

  @Test(arguments: StoreBackend.available) func refusesAGenerationThatDoesNotRise(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      try world.publish(lease: Demo.lease(endpoint: "grant", generation: 5, d: d))
      let same = Demo.lease(
        endpoint: "grant", generation: 5, createdAt: Demo.now + 1, d: d, now: Demo.now + 1)
      let answer = try world.publish(lease: same)
      #expect(answer.message == "invalid: stale generation")
      // What the app reads back: a code, not the text.
      let outcome = LeasePublishOutcome(accepted: answer.accepted, message: answer.message)
      guard case .refused(let refusal) = outcome else {
        Issue.record("\(outcome)")
        return
      }
      #expect(refusal.code == .staleGeneration)
      let lower = Demo.lease(
        endpoint: "grant", generation: 4, createdAt: Demo.now + 2, d: d, now: Demo.now + 2)
      #expect(try world.publish(lease: lower).message == "invalid: stale generation")
    }
  }

  private func accept(_ world: PushWorld, _ event: Event, maxLeases: Int, now: Int64 = Demo.now) throws
    -> LeaseAcceptance
  {
    let opened = try world.validator.open(event, tenantOrigin: Demo.origin, now: now)
    return try world.store.accept(
      opened, event: event, maxLeases: maxLeases, roster: world.roster, now: now)
  }

  @Test(arguments: StoreBackend.available) func refusesALeaseOverTheQuotaAndChangesNothing(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      #expect(
        try accept(world, Demo.lease(endpoint: "g1", generation: 1, d: .generate()), maxLeases: 2)
          == .accepted)
      #expect(
        try accept(world, Demo.lease(endpoint: "g2", generation: 1, d: .generate()), maxLeases: 2)
          == .accepted)
      let before = try world.store.allLeases(origin: Demo.origin)
      let third = Demo.lease(endpoint: "g3", generation: 1, d: .generate())
      #expect(try accept(world, third, maxLeases: 2) == .rejected("invalid: lease quota exceeded"))
      #expect(try world.store.allLeases(origin: Demo.origin) == before)
    }
  }

  @Test(arguments: StoreBackend.available) func sweepsExpiredLeasesBeforeCountingTheQuota(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let shortLived = Demo.lease(endpoint: "g1", generation: 1, d: .generate())
      #expect(try accept(world, shortLived, maxLeases: 1) == .accepted)
      let expiry = try world.validator.open(shortLived, tenantOrigin: Demo.origin, now: Demo.now).expiration
      let later = expiry
      let next = Demo.lease(endpoint: "g2", generation: 1, createdAt: later, d: .generate(), now: later)
      #expect(try accept(world, next, maxLeases: 1, now: later) == .accepted)
      let rows = try world.store.allLeases(origin: Demo.origin)
      #expect(rows.filter(\.active).map(\.endpoint) == ["g2"])
      #expect(rows.count == 2)
    }
  }

  @Test(arguments: StoreBackend.available) func rollsTheSweepBackWhenTheLeaseIsRefused(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let first = Demo.lease(endpoint: "g1", generation: 1, d: .generate())
      #expect(try accept(world, first, maxLeases: 8) == .accepted)
      let expiry = try world.validator.open(first, tenantOrigin: Demo.origin, now: Demo.now).expiration
      let clash = Demo.lease(
        endpoint: "g1", generation: 1, createdAt: expiry - 100, d: .generate(), now: expiry - 100)
      // Still unexpired at expiry - 100: the clash refuses and nothing was swept.
      #expect(
        try accept(world, clash, maxLeases: 8, now: expiry - 100)
          == .rejected("invalid: endpoint already leased"))
      #expect(try world.store.allLeases(origin: Demo.origin).map(\.active) == [true])
    }
  }

  @Test(arguments: StoreBackend.available) func refusesAnEndpointAnotherAddressLeasesEvenWhenDisabled(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      try world.publish(lease: Demo.lease(endpoint: "shared", generation: 1, d: d))
      let address = LeaseAddress(origin: Demo.origin, pubkey: Demo.account.publicKeyHex, d: d.rawValue)
      #expect(
        try world.store.disableEndpoint(
          address: address, generation: 1, endpointHash: Hex.encode(NostrSHA256.hash(Array("shared".utf8)))))
      let other = Demo.lease(endpoint: "shared", generation: 1, d: .generate())
      let refused = try world.publish(lease: other)
      #expect(refused.message == "invalid: endpoint already leased")
      #expect(
        LeasePublishOutcome(accepted: refused.accepted, message: refused.message)
          == .refused(LeaseRefusal(message: "invalid: endpoint already leased")))
      #expect(LeaseRefusal(message: refused.message).code == .endpointAlreadyLeased)
      #expect(try world.publish(lease: Demo.lease(endpoint: "own", generation: 1, d: .generate())).accepted)
    }
  }

  @Test(arguments: StoreBackend.available) func reenablesAnEndpointWithTheNextGeneration(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      try world.publish(lease: Demo.lease(endpoint: "grant", generation: 1, d: d))
      let address = LeaseAddress(origin: Demo.origin, pubkey: Demo.account.publicKeyHex, d: d.rawValue)
      let hash = Hex.encode(NostrSHA256.hash(Array("grant".utf8)))
      #expect(try world.store.disableEndpoint(address: address, generation: 1, endpointHash: hash))
      #expect(try world.store.liveLeases(origin: Demo.origin, now: Demo.now).isEmpty)
      let next = Demo.lease(
        endpoint: "grant", generation: 2, createdAt: Demo.now + 1, d: d, now: Demo.now + 1)
      #expect(try world.publish(lease: next).accepted)
      #expect(try world.store.liveLeases(origin: Demo.origin, now: Demo.now + 1).map(\.generation) == [2])
    }
  }

  @Test(arguments: StoreBackend.available) func revokesWithATombstoneThatSkipsQuotaAndClearsTheEndpoint(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      try world.publish(lease: Demo.lease(endpoint: "grant", generation: 1, d: d))
      let tombstone = Demo.tombstone(generation: 2, createdAt: Demo.now + 1, d: d, now: Demo.now + 1)
      #expect(try accept(world, tombstone, maxLeases: 0, now: Demo.now + 1) == .accepted)
      let row = try #require(try world.store.allLeases(origin: Demo.origin).first)
      #expect(!row.active && row.endpoint == nil && row.endpointHash == nil && row.generation == 2)
      #expect(try world.store.liveLeases(origin: Demo.origin, now: Demo.now + 1).isEmpty)
      let same = Demo.lease(
        endpoint: "grant", generation: 2, createdAt: Demo.now + 2, d: d, now: Demo.now + 2)
      #expect(try world.publish(lease: same).message == "invalid: stale generation")
    }
  }

  /// The store's SQL order (`ORDER BY created_at DESC, event_id ASC`) is `Event.supersedes`,
  /// ties included: two addresses share each `created_at`.
  @Test(arguments: StoreBackend.available) func ordersCurrentEventsByTheSupersedesRule(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world async throws in
      var published: [Event] = []
      for createdAt in [Demo.now, Demo.now + 2, Demo.now, Demo.now + 2] {
        let tombstone = Demo.tombstone(
          generation: 1, createdAt: createdAt, d: .generate(), now: createdAt)
        #expect(try world.publish(lease: tombstone).accepted)
        published.append(tombstone)
      }
      let served = try world.store.currentEvents(origin: Demo.origin, pubkey: Demo.account.publicKeyHex)
      #expect(served.map(\.id) == published.sorted { $0.supersedes($1) }.map(\.id))
      #expect(Set(served.map(\.createdAt)) == [Demo.now, Demo.now + 2])
    }
  }

  @Test(arguments: StoreBackend.available) func storesATombstoneForAnAddressNeverActive(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world async throws in
      let d = InstallationID.generate()
      #expect(try world.publish(lease: Demo.tombstone(generation: 1, d: d)).accepted)
      #expect(try world.store.allLeases(origin: Demo.origin).map(\.generation) == [1])
    }
  }

  @Test(arguments: StoreBackend.available) func backFillsRecentEventsInTheSameTransaction(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let mention = world.mention(offset: -30)
      let unrelated = Demo.event(createdAt: Demo.now - 20)
      let grant = try world.grant()
      try world.publish(
        lease: Demo.lease(endpoint: grant, generation: 1, d: .generate()), recent: [unrelated, mention])
      let wake = try world.onlyWake()
      #expect(wake.candidate.eventID == mention.id)
      #expect(wake.state == .pending)
      #expect(WakeRequestID.isValid(wake.requestID))
    }
  }

  @Test(arguments: StoreBackend.available) func servesOnlyTheCurrentEventOfEachAddressNewestFirst(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d1 = InstallationID.generate()
      let d2 = InstallationID.generate()
      try world.publish(lease: Demo.lease(endpoint: "a", generation: 1, d: d1))
      let replaced = Demo.lease(
        endpoint: "b", generation: 2, createdAt: Demo.now + 5, d: d1, now: Demo.now + 5)
      try world.publish(lease: replaced)
      let tombstone = Demo.tombstone(generation: 1, createdAt: Demo.now + 2, d: d2, now: Demo.now + 2)
      try world.publish(lease: tombstone)
      let events = try world.store.currentEvents(origin: Demo.origin, pubkey: Demo.account.publicKeyHex)
      #expect(events.map(\.id) == [replaced.id, tombstone.id])
      #expect(try world.store.currentEvents(origin: Demo.origin, pubkey: Demo.alice.publicKeyHex).isEmpty)
      #expect(try world.store.currentEvents(origin: "ws://other", pubkey: Demo.account.publicKeyHex).isEmpty)
    }
  }

  @Test(arguments: StoreBackend.available) func answersAnyOtherConstraintFailureAsAConstraintViolation(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      // A rule of another owner of the database (here a trigger) refuses the upsert.
      try world.execute(
        sqlite: "CREATE TRIGGER refuse BEFORE INSERT ON push_lease BEGIN SELECT RAISE(ABORT, 'refused'); END",
        postgres: """
          CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          RAISE EXCEPTION 'refused' USING ERRCODE = '23514'; END $$;
          CREATE TRIGGER refuse BEFORE INSERT ON push_lease FOR EACH ROW EXECUTE FUNCTION refuse();
          """)
      let lease = Demo.lease(endpoint: "grant", generation: 1, d: .generate())
      #expect(
        try world.publish(lease: lease)
          == IngestAnswer(accepted: false, message: "invalid: lease constraint violation"))
      #expect(try world.store.allLeases(origin: Demo.origin).isEmpty)
    }
  }

  @Test(arguments: StoreBackend.available) func reportsAStorageFailureAsAnError(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      try world.execute(sqlite: "DROP TABLE push_wake", postgres: "DROP TABLE push_wake")
      let lease = Demo.lease(endpoint: try world.grant(), generation: 1, d: .generate())
      let error = try #require(throws: PushRelayError.self) {
        try world.publish(lease: lease, recent: [world.mention()])
      }
      #expect(error.code == .storage)
      #expect(try world.store.allLeases(origin: Demo.origin).isEmpty)
    }
  }

  @Test func keepsTheSchemaVersionAcrossReopens() throws {
    let path = Demo.temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try PushStateDatabase(path: path)
    let reopened = try PushStateDatabase(path: path)
    #expect(try reopened.schemaVersion() == 5)
    try SQLiteTestHelper.execute("PRAGMA user_version = 6", path: path)
    let error = try #require(throws: PushRelayError.self) { _ = try PushStateDatabase(path: path) }
    #expect(error.code == .unsupportedSchema)
  }
}

/// The author-only visibility of kind 30350 through the store.
@Suite(.timeLimit(.minutes(1))) struct LeaseVisibilityTests {
  @Test(arguments: StoreBackend.available) func servesLeasesOnlyToTheirAuthorWhenAFilterAsks(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let lease = Demo.lease(endpoint: "grant", generation: 1, d: .generate())
      try world.publish(lease: lease)
      let me = Demo.account.publicKeyHex
      let leases = Filter(kinds: [30350])
      #expect(
        try world.store.visibleLeaseEvents(matching: [leases], identity: me, origin: Demo.origin).map(\.id)
          == [
            lease.id
          ])
      #expect(
        try world.store.visibleLeaseEvents(matching: [Filter()], identity: me, origin: Demo.origin).map(\.id)
          == [lease.id])
      #expect(
        try world.store.visibleLeaseEvents(matching: [leases], identity: nil, origin: Demo.origin).isEmpty)
      #expect(
        try world.store.visibleLeaseEvents(
          matching: [leases], identity: Demo.alice.publicKeyHex, origin: Demo.origin
        )
        .isEmpty)
      #expect(
        try world.store.visibleLeaseEvents(matching: [Filter(kinds: [9])], identity: me, origin: Demo.origin)
          .isEmpty)
      let otherD = Filter(kinds: [30350], tags: ["d": ["other"]])
      #expect(
        try world.store.visibleLeaseEvents(matching: [otherD], identity: me, origin: Demo.origin).isEmpty)
    }
  }
}
