import Foundation
import NostrEvent
import NostrPushTestSupport
import PushDescriptor
import PushLease
import PushRelay
import PushRelayPostgres
import Testing

/// The store under `buzz-push-v1`: endpoint uniqueness without an app
/// profile, and one generation per origin.
@Suite(.timeLimit(.minutes(1))) struct BuzzPushV1StoreTests {
  static let descriptor: PushDescriptor = try! RelayDocument(
    bytes: [UInt8](
      try! Data(contentsOf: Demo.packageRoot.appendingPathComponent("Fixtures/demo-v1/nip11.json")))
  ).push

  typealias BindingStore = PushProtocolBinding & InspectableLeaseStore

  @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote))
  func runsThePostgreSQLCasesToo() {
    #expect(StoreBackend.available == [.sqlite, .postgres])
  }

  /// A store (and its outbox) on a fresh file or database, removed after `body`.
  private func withStore(_ backend: StoreBackend, _ body: (any BindingStore, any WakeOutbox) throws -> Void)
    throws
  {
    switch backend {
    case .sqlite:
      let path = Demo.temporaryPath("push-state-v1")
      defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
      }
      let database = try PushStateDatabase(path: path)
      try body(SQLiteLeaseStore(database: database), SQLiteWakeOutbox(database: database))
    case .postgres:
      let database = try PostgresTestDatabase()
      defer { database.drop() }
      let opened = try database.open()
      try body(
        try PostgresLeaseStore(database: opened), try PostgresWakeOutbox(database: opened, clock: .caller))
    }
  }

  private func lease(endpoint: String, d: InstallationID) throws -> Event {
    let descriptor = Self.descriptor
    let subscriptions = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: Demo.account.publicKeyHex, joined: [Demo.channel], muted: [], mentionsOnly: false)
    return try LeaseBuilder(descriptor: descriptor, transport: "apns").active(
      endpoint: endpoint, subscriptions: subscriptions, generation: 1, createdAt: Demo.now,
      installationID: d, now: Demo.now, signer: Demo.account)
  }

  private func accept(_ event: Event, store: any BindingStore) throws -> LeaseAcceptance {
    let validator = try LeaseValidator(descriptor: Self.descriptor, pushKeys: [Demo.keyID: Demo.relayKey])
    let opened = try validator.open(event, tenantOrigin: Self.descriptor.origin, now: Demo.now)
    return try store.accept(
      opened, event: event, maxLeases: 8, roster: MutableRoster([:]), now: Demo.now)
  }

  @Test(arguments: StoreBackend.available)
  func refusesASecondLeaseOfTheSameEndpointWithoutAnAppProfile(backend: StoreBackend) throws {
    #expect(Self.descriptor.pushProtocol == .buzzPushV1)
    try withStore(backend) { store, _ in
      try store.bindProtocol(.buzzPushV1, origin: Self.descriptor.origin)
      let first = try lease(endpoint: "grant-shared", d: .generate())
      #expect(try accept(first, store: store) == .accepted)
      let second = try lease(endpoint: "grant-shared", d: .generate())
      #expect(try accept(second, store: store) == .rejected("invalid: endpoint already leased"))
      let third = try lease(endpoint: "grant-other", d: .generate())
      #expect(try accept(third, store: store) == .accepted)
      let rows = try store.allLeases(origin: Self.descriptor.origin)
      #expect(rows.count == 2)
      #expect(rows.map(\.appProfile) == ["", ""])
      #expect(Set(rows.compactMap(\.endpoint)) == ["grant-shared", "grant-other"])
    }
  }

  @Test(arguments: StoreBackend.available)
  func refusesToStartTheOtherGenerationOverLeases(backend: StoreBackend) throws {
    let origin = Self.descriptor.origin
    try withStore(backend) { store, outbox in
      #expect(try store.recordedProtocol(origin: origin) == nil)
      // An origin without rows may switch: nothing is carried over.
      try store.bindProtocol(.nipPL, origin: origin)
      try store.bindProtocol(.buzzPushV1, origin: origin)
      #expect(try store.recordedProtocol(origin: origin) == .buzzPushV1)
      #expect(try accept(try lease(endpoint: "grant-1", d: .generate()), store: store) == .accepted)
      // The same generation starts again; the other one does not.
      try store.bindProtocol(.buzzPushV1, origin: origin)
      let error = #expect(throws: PushRelayError.self) {
        try store.bindProtocol(.nipPL, origin: origin)
      }
      #expect(error?.code == .invalidConfiguration)
      #expect(error?.field == "nip11.json")
      let message = error?.message ?? ""
      #expect(message.contains("buzz-push-v1") && message.contains("nip-pl"))
      #expect(message.contains("leases and grants are not portable"))
      #expect(message.contains("start from an empty state"))
      #expect(try store.recordedProtocol(origin: origin) == .buzzPushV1)
      // A relay built over it with the other generation fails to start; with its own, it starts.
      let nipPL = try RelayDocument(
        bytes: [UInt8](
          try Data(contentsOf: Demo.packageRoot.appendingPathComponent("Fixtures/demo/nip11.json")))
      ).push
      #expect(nipPL.origin == origin)
      let refused = #expect(throws: PushRelayError.self) {
        _ = try PushRelay(
          validator: try LeaseValidator(descriptor: nipPL, pushKeys: [Demo.keyID: Demo.relayKey]),
          store: store,
          outbox: outbox, descriptor: nipPL, roster: MutableRoster([:]), gateway: nil)
      }
      #expect(refused?.field == "nip11.json")
      _ = try PushRelay(
        validator: try LeaseValidator(descriptor: Self.descriptor, pushKeys: [Demo.keyID: Demo.relayKey]),
        store: store, outbox: outbox, descriptor: Self.descriptor, roster: MutableRoster([:]), gateway: nil)
      // Another origin of the same file is its own.
      try store.bindProtocol(.nipPL, origin: "wss://other.example")
      #expect(try store.recordedProtocol(origin: "wss://other.example") == .nipPL)
    }
  }
}
