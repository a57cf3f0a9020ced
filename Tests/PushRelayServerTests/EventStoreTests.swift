import Foundation
import NostrEvent
import PushRelayServer
import Testing
import _NostrPostgres
import _NostrSQLite

/// Where an event-store test keeps its events: a SQLite file of its own, or a PostgreSQL database
/// of its own on the server `NOSTRPUSH_POSTGRES` names (`Scripts/with-postgres`), dropped after.
enum EventStoreBackend: String, Sendable, CustomTestStringConvertible {
  case sqlite
  case postgres

  static var postgresServer: String? {
    guard let value = ProcessInfo.processInfo.environment["NOSTRPUSH_POSTGRES"], !value.isEmpty else {
      return nil
    }
    return value
  }

  /// SQLite always; PostgreSQL when `NOSTRPUSH_POSTGRES` is set (otherwise the suite's
  /// `runsThePostgreSQLCasesToo` is skipped with the note saying how to run them).
  static var available: [EventStoreBackend] { postgresServer == nil ? [.sqlite] : [.sqlite, .postgres] }

  var testDescription: String { rawValue }

  /// Runs `body` with a way to open (and reopen) one fresh store with the given bounds.
  func withStore(
    _ body: ((Int64, Int) throws -> any ServiceEventStore) throws -> Void
  ) throws {
    switch self {
    case .sqlite:
      let folder = try TemporaryFolder()
      defer { folder.remove() }
      try body { retention, quota in
        try SQLiteServiceEventStore(
          path: folder.path + "/events.sqlite", retentionSeconds: retention, authorQuotaBytes: quota)
      }
    case .postgres:
      let server = try #require(Self.postgresServer)
      let name = "svc_events_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
      let admin = try PostgresConnection(connectionString: server)
      try admin.execute("SET statement_timeout = 0; SET lock_timeout = 0")
      try admin.execute("CREATE DATABASE \(name)")
      defer {
        try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        admin.close()
      }
      try body { retention, quota in
        try PostgresServiceEventStore(
          connectionString: server + " dbname=" + name, retentionSeconds: retention, authorQuotaBytes: quota)
      }
    }
  }
}

/// The service's event store on a real SQLite file and a real PostgreSQL database: durable,
/// deduplicated, bounded alike.
@Suite struct ServiceEventStoreTests {
  static let defaultRetention = PushServiceConfiguration.defaultRetentionSeconds
  static let defaultQuota = PushServiceConfiguration.defaultAuthorQuotaBytes

  @Test(
    .enabled(
      if: EventStoreBackend.postgresServer != nil,
      "PostgreSQL cases need NOSTRPUSH_POSTGRES: run them with `Scripts/with-postgres -- swift test`"))
  func runsThePostgreSQLCasesToo() {
    #expect(EventStoreBackend.available == [.sqlite, .postgres])
  }

  static func note(_ content: String, at createdAt: Int64, by key: SecretKey = Keys.alice) -> Event {
    try! UnsignedEvent(pubkey: key.publicKeyHex, createdAt: createdAt, kind: 1, tags: [], content: content)
      .signed(with: key)
  }

  @Test func theSQLiteFileIsOwnerOnly() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/events.sqlite"
    _ = try SQLiteServiceEventStore(path: path)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }

  @Test(arguments: EventStoreBackend.available)
  func whatWasStoredIsThereAfterReopening(backend: EventStoreBackend) throws {
    try backend.withStore { open in
      let event = Self.note("kept", at: 1_767_226_200)
      do {
        let store = try open(Self.defaultRetention, Self.defaultQuota)
        #expect(try store.cursor(upstream: "ws://a") == nil)
        #expect(try store.insert(event, json: event.jsonBytes(), receivedAt: 1_767_226_200))
        #expect(try !store.insert(event, json: event.jsonBytes(), receivedAt: 1_767_226_201))
        try store.advanceCursor(upstream: "ws://a", to: 100)
        try store.advanceCursor(upstream: "ws://a", to: 50)
      }
      let reopened = try open(Self.defaultRetention, Self.defaultQuota)
      #expect(try reopened.contains(id: event.id))
      #expect(try reopened.cursor(upstream: "ws://a") == 100)
      #expect(try reopened.size().events == 1)
    }
  }

  @Test(arguments: EventStoreBackend.available)
  func anAuthorOverTheQuotaLosesTheOldestFirst(backend: EventStoreBackend) throws {
    try backend.withStore { open in
      let store = try open(Self.defaultRetention, 64 * 1024)
      let padding = String(repeating: "x", count: 20 * 1024)
      let events = (0..<5).map { Self.note(padding + "\($0)", at: 1_767_226_200 + Int64($0)) }
      for event in events { try store.insert(event, json: event.jsonBytes(), receivedAt: event.createdAt) }
      let kept = try events.filter { try store.contains(id: $0.id) }
      #expect(kept.map(\.id) == events.suffix(3).map(\.id))
      #expect(try store.size().bytes <= 64 * 1024)
      let other = Self.note("another author", at: 1_767_226_200, by: Keys.carol)
      #expect(try store.insert(other, json: other.jsonBytes(), receivedAt: 1))
      let whole = Self.note(String(repeating: "y", count: 70 * 1024), at: 1_767_226_300)
      #expect(try !store.insert(whole, json: whole.jsonBytes(), receivedAt: 1))
    }
  }

  @Test(arguments: EventStoreBackend.available)
  func retentionPrunesByReceipt(backend: EventStoreBackend) throws {
    try backend.withStore { open in
      let store = try open(100, Self.defaultQuota)
      let old = Self.note("old", at: 1000)
      let new = Self.note("new", at: 1000)
      try store.insert(old, json: old.jsonBytes(), receivedAt: 1000)
      try store.insert(new, json: new.jsonBytes(), receivedAt: 1150)
      #expect(try store.prune(now: 1200) == 1)
      #expect(try !store.contains(id: old.id))
      #expect(try store.contains(id: new.id))
    }
  }

  @Test(arguments: EventStoreBackend.available)
  func aReadAnswersNewestFirstWithinTheFilterLimit(backend: EventStoreBackend) throws {
    try backend.withStore { open in
      let store = try open(Self.defaultRetention, Self.defaultQuota)
      let events = (0..<10).map { Self.note("n\($0)", at: 2000 + Int64($0)) }
      for event in events { try store.insert(event, json: event.jsonBytes(), receivedAt: 1) }
      let read = try store.events(matching: [Filter(kinds: [1], limit: 3)], visible: { _ in true })
      #expect(read.map(\.id) == events.reversed().prefix(3).map(\.id))
      // Authors, since and until narrow the statement; an empty kinds list matches nothing.
      let narrowed = try store.events(
        matching: [Filter(authors: [Keys.alice.publicKeyHex], since: 2003, until: 2005)],
        visible: { _ in true })
      #expect(narrowed.map(\.id) == [events[5].id, events[4].id, events[3].id])
      #expect(try store.events(matching: [Filter(kinds: [])], visible: { _ in true }).isEmpty)
      let hidden = try store.events(
        matching: [Filter(kinds: [1], limit: 3)], visible: { $0.id != events[9].id })
      #expect(hidden.map(\.id) == [events[8].id, events[7].id, events[6].id])
    }
  }

  /// The SQL scan's order (`ORDER BY created_at DESC, id ASC`) is `Event.supersedes`: at one
  /// `created_at`, the limit keeps the lowest ids.
  @Test(arguments: EventStoreBackend.available)
  func aLimitedReadKeepsWhatSupersedesAtATie(backend: EventStoreBackend) throws {
    try backend.withStore { open in
      let store = try open(Self.defaultRetention, Self.defaultQuota)
      let events = (0..<6).map { Self.note("tie\($0)", at: 3000) }
      for event in events { try store.insert(event, json: event.jsonBytes(), receivedAt: 1) }
      let read = try store.events(matching: [Filter(kinds: [1], limit: 2)], visible: { _ in true })
      #expect(read.map(\.id) == events.sorted { $0.supersedes($1) }.prefix(2).map(\.id))
    }
  }

  /// A channel's member list (kind 39002) is read by its `d`, however many other lists are newer:
  /// a file written before the `d` column (schema 1) with one more list than a read scans is
  /// migrated on opening, and the oldest list is still found.
  @Test func aMemberListIsFoundByItsAddressAmongMoreListsThanOneReadScans() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/events.sqlite"
    let signer = Keys.carol
    func list(_ channel: String, at createdAt: Int64) -> Event {
      try! UnsignedEvent(
        pubkey: signer.publicKeyHex, createdAt: createdAt, kind: 39002,
        tags: [["d", channel], ["p", Keys.alice.publicKeyHex]], content: ""
      ).signed(with: signer)
    }
    let target = list("target", at: 1_767_000_000)
    do {
      let connection = try SQLiteConnection<PushServiceError>(path: path, busyTimeoutMilliseconds: 1000) {
        PushServiceError(code: .storage, field: "store", message: $0.message)
      }
      let firstSchema = SQLiteMigrator(
        Array(SQLiteServiceEventStore.migrator.migrations.prefix(1)),
        newerSchema: { _, _ in PushServiceError(code: .unsupportedSchema, field: "store", message: "newer") })
      try firstSchema.migrate(connection)
      try connection.immediateTransaction { () throws(PushServiceError) in
        let newer = (0...ServiceEventReads.maxScannedRows).map {
          list("channel \($0)", at: 1_767_000_001 + Int64($0))
        }
        for event in [target] + newer {
          let json = event.jsonBytes()
          _ = try connection.run(
            "INSERT INTO service_event (id, pubkey, kind, created_at, received_at, size, json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
              .text(event.id), .text(event.pubkey), .integer(39002), .integer(event.createdAt), .integer(1),
              .integer(Int64(json.count)), .blob(json),
            ])
        }
      }
    }
    let store = try SQLiteServiceEventStore(path: path)
    let filter = Filter(authors: [signer.publicKeyHex], kinds: [39002], tags: ["d": ["target"]], limit: 1)
    #expect(try store.events(matching: [filter], visible: { _ in true }).map(\.id) == [target.id])
    let stored = list("stored after the migration", at: 1_767_000_000)
    try store.insert(stored, json: stored.jsonBytes(), receivedAt: 2)
    let again = Filter(
      authors: [signer.publicKeyHex], kinds: [39002], tags: ["d": ["stored after the migration"]], limit: 1)
    #expect(try store.events(matching: [again], visible: { _ in true }).map(\.id) == [stored.id])
  }
}
