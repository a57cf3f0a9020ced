import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import PushDescriptor
import PushLease
import PushRelay
import PushRelayPostgres

/// A roster from a dictionary: channel → members.
struct TestRoster: RosterSource {
  var channels: [String: Set<String>]

  func members(ofChannel channel: String, origin: String) -> Set<String>? { channels[channel] }
}

/// A roster whose members a test can change while the worker runs.
final class MutableRoster: RosterSource, @unchecked Sendable {
  private let lock = NSLock()
  private var channels: [String: Set<String>]

  init(_ channels: [String: Set<String>]) { self.channels = channels }

  func set(_ channel: String, _ members: Set<String>?) {
    lock.lock()
    channels[channel] = members
    lock.unlock()
  }

  func members(ofChannel channel: String, origin: String) -> Set<String>? {
    lock.lock()
    defer { lock.unlock() }
    return channels[channel]
  }
}

/// The demo relay's keys and descriptor (test keys only, `Fixtures/demo/keys.json`).
enum Demo {
  static var packageRoot: URL { PackageRoot.url }
  static let descriptor: PushDescriptor = try! PushDescriptor(
    strictJSON: [UInt8](try! Data(contentsOf: packageRoot.appendingPathComponent("Fixtures/demo/nip11.json")))
  )
  static let relayKey = try! SecretKey(
    hex: "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
  static let account = try! SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
  static let alice = try! SecretKey(hex: "ffa7a0616ec26dabc85b5a17b7cb452764b2dc66b40334559fe04ad7d29da7c2")
  static let carol = try! SecretKey(hex: "0fd61fd025e34f1fb1750860d07272e298ce827114da698d8398ffa2ecb0e260")
  static let keyID = "demo-2026-01"
  static let profile = PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
  static let channel = "5c1c2a4e-8f3b-4c2d-9a7e-1b2c3d4e5f60"
  static let now: Int64 = 1_767_226_200
  static var origin: String { descriptor.origin }

  static func temporaryPath(_ name: String = "push-state") -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path
  }

  /// A signed event of `kind` by `key` at `createdAt` with `tags`.
  static func event(
    kind: Int = 9, by key: SecretKey = alice, createdAt: Int64 = now, tags: [[String]] = [],
    content: String = "hi"
  ) -> Event {
    try! UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: createdAt, kind: kind, tags: tags, content: content
    )
    .signed(with: key)
  }

  /// The planner's subscriptions for the account: mentions, and `joined` channels.
  static func plan(joined: [String] = [channel], muted: [String] = []) -> [LeaseSubscription] {
    try! SubscriptionPlanner(descriptor: descriptor).plan(
      for: account.publicKeyHex, joined: joined, muted: muted, mentionsOnly: false)
  }

  /// A signed active lease of the account.
  static func lease(
    endpoint: String, generation: Int64, createdAt: Int64 = now, d: InstallationID, now: Int64 = now,
    subscriptions: [LeaseSubscription]? = nil, by key: SecretKey = account
  ) -> Event {
    try! LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
      endpoint: endpoint, subscriptions: subscriptions ?? plan(), generation: generation,
      createdAt: createdAt,
      installationID: d, now: now, signer: key)
  }

  /// A signed tombstone of the account.
  static func tombstone(generation: Int64, createdAt: Int64 = now, d: InstallationID, now: Int64 = now)
    -> Event
  {
    try! LeaseBuilder(descriptor: descriptor).tombstone(
      installationID: d, generation: generation, createdAt: createdAt, now: now, signer: account)
  }
}

/// A relay's push half on a real SQLite file (or a PostgreSQL database of its own), with a real
/// gateway fixture on loopback, all on one manual clock: the `PushRelay` a vendor builds, and its
/// worker driven one sweep at a time.
final class PushWorld: LoopbackFixture, @unchecked Sendable {
  let backend: StoreBackend
  let clock: ManualUnixClock
  /// The SQLite file (SQLite only).
  let path: String
  /// The SQLite database (SQLite only).
  let database: PushStateDatabase?
  /// The PostgreSQL database (PostgreSQL only).
  let postgres: PostgresTestDatabase?
  let store: any InspectableLeaseStore
  let outbox: any WakeOutbox
  let roster: MutableRoster
  let gateway: GatewayFixture
  let validator: LeaseValidator
  var relay: PushRelay!
  var ingest: Ingest!
  var worker: DeliveryWorker!
  var client: GatewayClient!

  /// What a relay's socket layer does with a kind 30350 `EVENT`: verify once (step 3), then ask
  /// `PushRelay`; `recent` events are stored first, as the relay would have.
  struct Ingest {
    let world: PushWorld

    func ingest(_ event: Event, identity: String?, recent: [Event] = []) throws -> IngestAnswer {
      for candidate in recent { try world.publish(candidate) }
      guard let verified = VerifiedEvent(event) else {
        if case .badSignature = event.verify() {
          return IngestAnswer(accepted: false, message: "invalid: invalid schnorr signature")
        }
        return IngestAnswer(
          accepted: false,
          message: "invalid: invalid event id: computed \(event.computedID()), got \(event.id)")
      }
      return try world.relay.ingestLease(verified, identity: identity)
    }
  }

  init(
    backend: StoreBackend = .sqlite, quota: Int = 0, timeout: Duration = GatewayClient.defaultTimeout
  ) async throws {
    self.backend = backend
    clock = ManualUnixClock(seconds: Demo.now)
    switch backend {
    case .sqlite:
      path = Demo.temporaryPath()
      let database = try PushStateDatabase(path: path)
      self.database = database
      postgres = nil
      store = SQLiteLeaseStore(database: database)
      outbox = SQLiteWakeOutbox(database: database)
    case .postgres:
      path = ""
      database = nil
      let postgres = try PostgresTestDatabase()
      self.postgres = postgres
      let opened = try postgres.open()
      store = try PostgresLeaseStore(database: opened)
      // The contract runs on the test's manual clock, as the SQLite outbox's does.
      outbox = try PostgresWakeOutbox(database: opened, clock: .caller)
    }
    roster = MutableRoster([Demo.channel: [Demo.account.publicKeyHex, Demo.alice.publicKeyHex]])
    let clock = clock
    gateway = try GatewayFixture(
      configuration: GatewayFixtureConfiguration(quota: quota), clock: { clock.seconds })
    validator = try LeaseValidator(descriptor: Demo.descriptor, pushKeys: [Demo.keyID: Demo.relayKey])
    let base = try await gateway.start()
    client = try GatewayClient(
      baseURL: String(base.absoluteString.trimmingSuffix("/")), transport: URLSessionHTTPTransport(),
      timeout: timeout)
    relay = try PushRelay(
      validator: validator, store: store, outbox: outbox, descriptor: Demo.descriptor, roster: roster,
      gateway: client, clock: clock.clock)
    ingest = Ingest(world: self)
    worker = DeliveryWorker(
      store: store, outbox: outbox, client: client, pushKeys: [Demo.keyID: Demo.relayKey], roster: roster,
      clock: clock.clock)
  }

  func stop() async {
    await gateway.stop()
    postgres?.drop()
    guard database != nil else { return }
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: path + "-wal")
    try? FileManager.default.removeItem(atPath: path + "-shm")
  }

  /// Runs `sqlite` on the SQLite file, or `postgres` on the PostgreSQL database, from a
  /// connection of its own: another owner of the database changing it behind the store.
  func execute(sqlite: String, postgres: String) throws {
    switch backend {
    case .sqlite: try SQLiteTestHelper.execute(sqlite, path: path)
    case .postgres: try self.postgres?.execute(postgres)
    }
  }

  /// The schema version the store's database records.
  func schemaVersion() throws -> Int {
    switch backend {
    case .sqlite: try database?.schemaVersion() ?? 0
    case .postgres: try postgres?.open().schemaVersion ?? 0
    }
  }

  /// A grant for `token` issued to the relay key.
  func grant(token: String = "a1b2c3d4", generation: Int64 = 1) throws -> String {
    try gateway.issueGrant(
      relayPubkey: Demo.relayKey.publicKeyHex, deviceToken: token, generation: generation
    ).grant
  }

  /// Ingests `event` as authenticated by its author, after storing `recent`.
  @discardableResult
  func publish(lease event: Event, recent: [Event] = []) throws -> IngestAnswer {
    try ingest.ingest(event, identity: event.pubkey, recent: recent)
  }

  /// Stores `event` in the relay's eyes (`PushRelay.didStore`); returns the request ids of the
  /// wakes it enqueued.
  @discardableResult
  func publish(_ event: Event) throws -> [String] {
    let before = Set(try outbox.wakes().map(\.requestID))
    try relay.didStore(event, receivedAt: clock.seconds)
    return try outbox.wakes().map(\.requestID).filter { !before.contains($0) }
  }

  /// The only wake, required.
  func onlyWake() throws -> Wake {
    let wakes = try outbox.wakes()
    guard wakes.count == 1 else {
      throw PushRelayError(code: .corruptRow, message: "expected one wake, found \(wakes.count)")
    }
    return wakes[0]
  }

  /// A mention of the account by alice in the demo channel, `offset` seconds from now.
  func mention(offset: Int64 = 0) -> Event {
    Demo.event(
      createdAt: clock.seconds + offset, tags: [["h", Demo.channel], ["p", Demo.account.publicKeyHex]])
  }
}

extension String {
  func trimmingSuffix(_ suffix: String) -> Substring {
    hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
  }
}
