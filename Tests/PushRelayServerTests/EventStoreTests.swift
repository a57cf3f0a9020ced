import Foundation
import NostrEvent
import PushRelayServer
import Testing
import _NostrSQLite

/// The service's event store on a real SQLite file: durable, deduplicated, bounded.
@Suite struct ServiceEventStoreTests {
  static func note(_ content: String, at createdAt: Int64, by key: SecretKey = Keys.alice) -> Event {
    try! UnsignedEvent(pubkey: key.publicKeyHex, createdAt: createdAt, kind: 1, tags: [], content: content)
      .signed(with: key)
  }

  @Test func whatWasStoredIsThereAfterReopening() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let path = folder.path + "/events.sqlite"
    let event = Self.note("kept", at: 1_767_226_200)
    do {
      let store = try ServiceEventStore(path: path)
      #expect(try store.insert(event, json: event.jsonBytes(), receivedAt: 1_767_226_200))
      #expect(try !store.insert(event, json: event.jsonBytes(), receivedAt: 1_767_226_201))
      try store.advanceCursor(upstream: "ws://a", to: 100)
      try store.advanceCursor(upstream: "ws://a", to: 50)
    }
    let reopened = try ServiceEventStore(path: path)
    #expect(try reopened.contains(id: event.id))
    #expect(try reopened.cursor(upstream: "ws://a") == 100)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }

  @Test func anAuthorOverTheQuotaLosesTheOldestFirst() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let store = try ServiceEventStore(path: folder.path + "/events.sqlite", authorQuotaBytes: 64 * 1024)
    let padding = String(repeating: "x", count: 20 * 1024)
    let events = (0..<5).map { Self.note(padding + "\($0)", at: 1_767_226_200 + Int64($0)) }
    for event in events { try store.insert(event, json: event.jsonBytes(), receivedAt: event.createdAt) }
    let kept = try events.filter { try store.contains(id: $0.id) }
    #expect(kept.map(\.id) == events.suffix(3).map(\.id))
    #expect(try store.size().bytes <= 64 * 1024)
    let other = Self.note("another author", at: 1_767_226_200, by: Keys.carol)
    #expect(try store.insert(other, json: other.jsonBytes(), receivedAt: 1))
  }

  @Test func retentionPrunesByReceipt() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let store = try ServiceEventStore(path: folder.path + "/events.sqlite", retentionSeconds: 100)
    let old = Self.note("old", at: 1000)
    let new = Self.note("new", at: 1000)
    try store.insert(old, json: old.jsonBytes(), receivedAt: 1000)
    try store.insert(new, json: new.jsonBytes(), receivedAt: 1150)
    #expect(try store.prune(now: 1200) == 1)
    #expect(try !store.contains(id: old.id))
    #expect(try store.contains(id: new.id))
  }

  @Test func aReadAnswersNewestFirstWithinTheFilterLimit() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let store = try ServiceEventStore(path: folder.path + "/events.sqlite")
    let events = (0..<10).map { Self.note("n\($0)", at: 2000 + Int64($0)) }
    for event in events { try store.insert(event, json: event.jsonBytes(), receivedAt: 1) }
    let read = try store.events(matching: [Filter(kinds: [1], limit: 3)], visible: { _ in true })
    #expect(read.map(\.id) == events.reversed().prefix(3).map(\.id))
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
        Array(ServiceEventStore.migrator.migrations.prefix(1)),
        newerSchema: { _, _ in PushServiceError(code: .unsupportedSchema, field: "store", message: "newer") })
      try firstSchema.migrate(connection)
      try connection.immediateTransaction { () throws(PushServiceError) in
        let newer = (0...ServiceEventStore.maxScannedRows).map {
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
    let store = try ServiceEventStore(path: path)
    let filter = Filter(authors: [signer.publicKeyHex], kinds: [39002], tags: ["d": ["target"]], limit: 1)
    #expect(try store.events(matching: [filter], visible: { _ in true }).map(\.id) == [target.id])
    let stored = list("stored after the migration", at: 1_767_000_000)
    try store.insert(stored, json: stored.jsonBytes(), receivedAt: 2)
    let again = Filter(
      authors: [signer.publicKeyHex], kinds: [39002], tags: ["d": ["stored after the migration"]], limit: 1)
    #expect(try store.events(matching: [again], visible: { _ in true }).map(\.id) == [stored.id])
  }
}
