import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushDescriptor
import PushLease
import PushRelay
import PushRelayPostgres
import _NostrPostgres

extension BenchmarkRegistry {
  /// The PostgreSQL rows of `Docs/Performance.md` (`--only postgres`, run under `Scripts/with-postgres`):
  /// wakes per second delivered by two `nostr-push relay --database` worker processes on one
  /// database beside one process on SQLite; and published on process A (this one) → wake from
  /// process B's worker, p99, beside one `SELECT 1` round trip on the same database.
  ///
  /// The server is made durable first (`ALTER SYSTEM` fsync, synchronous_commit and
  /// full_page_writes on, reloaded), since `Scripts/with-postgres` starts it with them off for tests.
  static func postgresBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    guard let base = ProcessInfo.processInfo.environment["NOSTRPUSH_POSTGRES"], !base.isEmpty else {
      return ([], ["postgres rows skipped: NOSTRPUSH_POSTGRES is not set (run under Scripts/with-postgres)"])
    }
    let nostrPush = BenchBinaries.folder.appendingPathComponent("nostr-push").path
    guard FileManager.default.isExecutableFile(atPath: nostrPush) else {
      return (
        [], ["postgres rows skipped: \(nostrPush) not found (swift build -c release --product nostr-push)"]
      )
    }
    let admin = try PostgresConnection(connectionString: base)
    // One statement each: ALTER SYSTEM cannot run in the implicit transaction of a multi-statement
    // query.
    for setting in ["fsync", "synchronous_commit", "full_page_writes"] {
      try admin.execute("ALTER SYSTEM SET \(setting) = on")
    }
    try admin.query("SELECT pg_reload_conf()")
    admin.close()
    let wakes = quick ? 2_000 : 10_000
    let messages = quick ? 50 : 200
    let rows = [
      Benchmark(
        module: "PushRelayPostgres", name: "delivery of \(wakes) pending wakes, two worker processes",
        unit: "wakes/s", baselineName: "one process on SQLite", target: "≥ 1 × baseline",
        baseline: { try blockingRun { try await DeliveryRun(wakes: wakes).run() } },
        measured: {
          try blockingRun {
            try await PostgresDeliveryRun(base: base, nostrPush: nostrPush, wakes: wakes).run()
          }
        },
        passes: { summary in summary.ratio.map { $0 >= 1 } }),
      Benchmark(
        module: "PushRelayPostgres", name: "published on A → wake from B p99, \(messages) messages",
        unit: "ms",
        baselineName: "SELECT 1 round trip p99", target: "report; ≤ 20 ms",
        baseline: { try PostgresWakeLatencyRun.selectOne(base: base, count: messages) },
        measured: {
          try blockingRun {
            try await PostgresWakeLatencyRun(base: base, nostrPush: nostrPush, messages: messages).run()
          }
        },
        passes: { $0.median <= 20 }),
    ]
    return (rows, ["postgres rows: the server runs with fsync, synchronous_commit and full_page_writes on"])
  }
}

/// A database of one run's own on the server `NOSTRPUSH_POSTGRES` names, and `nostr-push relay
/// --database` processes on it serving one tenant origin with the bench descriptor.
final class PostgresBenchWorld {
  let name = "np_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
  let base: String
  let connectionString: String
  let database: PostgresDatabase
  let pushKey = SecretKey.generate()
  let descriptor: PushDescriptor
  let folder: URL
  private var processes: [Process] = []

  init(base: String, members: [String: [String]] = [:]) throws {
    self.base = base
    connectionString = base + " dbname=" + name
    let admin = try PostgresConnection(connectionString: base)
    try admin.execute("CREATE DATABASE \(name)")
    admin.close()
    database = try PostgresDatabase(connectionString: connectionString)
    descriptor = try BenchDescriptor.make(pushKey: pushKey)
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    // NIP-11 `self` is the push key, so the rosters the relay processes read are its kind 39002s.
    let document = PushLoadRun.document(origin: BenchDescriptor.origin, pubkey: pushKey.publicKeyHex)
      .replacingOccurrences(
        of: #"{"supported_nips""#, with: #"{"self":"\#(pushKey.publicKeyHex)","supported_nips""#)
    try Data(document.utf8).write(to: folder.appendingPathComponent("nip11.json"))
    var lines: [String] = []
    for (channel, pubkeys) in members {
      let roster = try UnsignedEvent(
        pubkey: pushKey.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970) - 60, kind: 39002,
        tags: [["d", channel]] + pubkeys.map { ["p", $0] }, content: ""
      ).signed(with: pushKey)
      lines.append(String(decoding: roster.jsonBytes(), as: UTF8.self))
    }
    try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: folder.appendingPathComponent("events.jsonl"))
    let secretHex = pushKey.withUnsafeBytes { Hex.encode(Array($0)) }
    try Data(secretHex.utf8).write(to: folder.appendingPathComponent("push.key"))
  }

  /// Starts a relay process delivering to `gateway`; returns once it listens.
  func startRelay(nostrPush: String, gateway: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: nostrPush)
    process.arguments = [
      "relay", "--data", folder.path, "--push-key-file", folder.appendingPathComponent("push.key").path,
      "--database", connectionString, "--origin", BenchDescriptor.origin, "--gateway", gateway,
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    processes.append(process)
    guard !output.fileHandleForReading.availableData.isEmpty else {
      throw PipelineRunError("a relay process ended before it listened")
    }
  }

  /// Stops the relay processes and drops the database.
  func stop() {
    for process in processes {
      process.terminate()
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: folder)
    if let admin = try? PostgresConnection(connectionString: base) {
      _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
      admin.close()
    }
  }
}

/// Two worker processes delivering `wakes` pending wakes (one lease, one wake per event, no
/// channel) to the gateway fixture on loopback (quota off, answering at once); timed from the
/// enqueue's commit, with both processes already listening, to the last gateway request.
struct PostgresDeliveryRun: Sendable {
  let base: String
  let nostrPush: String
  let wakes: Int

  func run() async throws -> Double {
    let world = try PostgresBenchWorld(base: base)
    defer { world.stop() }
    let now = Int64(Date().timeIntervalSince1970)
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0))
    var gatewayBase = try await gateway.start().absoluteString
    if gatewayBase.hasSuffix("/") { gatewayBase.removeLast() }
    let grant = try gateway.issueGrant(relayPubkey: world.pushKey.publicKeyHex, deviceToken: "a1b2c3d4").grant
    let hash = Hex.encode(NostrSHA256.hash(Array(grant.utf8)))
    let owner = SecretKey.generate().publicKeyHex
    let lease = OpenedLease(
      address: OpenedLease.Address(pubkey: owner, d: "delivery"), eventID: String(repeating: "1", count: 64),
      createdAt: now, expiration: now + 86_400, keyID: BenchDescriptor.keyID, origin: world.descriptor.origin,
      generation: 1,
      state: .active(
        appProfile: "org.nostrpushkit.demo", transport: "apns", endpoint: grant, endpointHash: hash,
        subscriptions: []))
    let store = try PostgresLeaseStore(database: world.database)
    _ = try store.accept(
      lease, event: BenchDescriptor.leaseEvent(id: lease.eventID, pubkey: owner, createdAt: now),
      maxLeases: 8,
      roster: LoadRoster(channels: [:]), now: now)
    for _ in 0..<2 { try world.startRelay(nostrPush: nostrPush, gateway: gatewayBase) }
    let candidates = (0..<wakes).map { position in
      WakeCandidate(
        address: LeaseAddress(origin: world.descriptor.origin, lease: lease.address), generation: 1,
        keyID: BenchDescriptor.keyID, endpoint: grant, endpointHash: hash, transport: "apns",
        eventID: String(format: "%064x", position), channel: nil, pushClass: "default", expiresAt: now + 3600)
    }
    let outbox = try PostgresWakeOutbox(database: world.database)
    _ = try outbox.enqueue(candidates, nowMilliseconds: now * 1000)
    let start = Stopwatch.mark()
    let done = await Polling.eventually(within: .seconds(300), every: .milliseconds(10)) {
      gateway.requestCount() >= wakes
    }
    let seconds = Stopwatch.seconds(since: start)
    await gateway.stop()
    precondition(done, "the delivery run did not finish")
    precondition(
      Set(gateway.requests().map(\.requestID)).count == wakes && gateway.requests().count == wakes,
      "not every wake was requested once")
    return Double(wakes) / seconds
  }
}

/// Published on process A (this one: `PushRelay.didStore` on the PostgreSQL store) → the gateway's
/// request from process B's worker (`nostr-push relay --database`, woken by `NOTIFY`), per message,
/// one at a time; the p99 in ms.
struct PostgresWakeLatencyRun: Sendable {
  let base: String
  let nostrPush: String
  let messages: Int

  func run() async throws -> Double {
    let channel = UUID().uuidString.lowercased()
    let owner = SecretKey.generate()
    let sender = SecretKey.generate()
    let world = try PostgresBenchWorld(
      base: base, members: [channel: [owner.publicKeyHex, sender.publicKeyHex]])
    defer { world.stop() }
    let now = Int64(Date().timeIntervalSince1970)
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0))
    var gatewayBase = try await gateway.start().absoluteString
    if gatewayBase.hasSuffix("/") { gatewayBase.removeLast() }
    let grant = try gateway.issueGrant(relayPubkey: world.pushKey.publicKeyHex, deviceToken: "a1b2c3d4").grant
    let roster = LoadRoster(channels: [channel: [owner.publicKeyHex, sender.publicKeyHex]])
    let relay = try PushRelay(
      validator: try LeaseValidator(
        descriptor: world.descriptor, pushKeys: [BenchDescriptor.keyID: world.pushKey]),
      store: try PostgresLeaseStore(database: world.database),
      outbox: try PostgresWakeOutbox(database: world.database),
      descriptor: world.descriptor, roster: roster, gateway: nil)
    let lease = try LeaseBuilder(
      descriptor: world.descriptor, appProfile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
    )
    .active(
      endpoint: grant,
      subscriptions: [
        LeaseSubscription(filter: LeaseFilter(kinds: [9], pTags: [owner.publicKeyHex]), pushClass: "default")
      ], generation: 1, createdAt: now, installationID: .generate(), now: now, signer: owner)
    guard let verified = VerifiedEvent(lease),
      try relay.ingestLease(verified, identity: owner.publicKeyHex).accepted
    else { throw PipelineRunError("the bench lease was refused") }
    try world.startRelay(nostrPush: nostrPush, gateway: gatewayBase)
    var samples: [Double] = []
    for index in 0..<messages {
      let message = try UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970), kind: 9,
        tags: [["h", channel], ["p", owner.publicKeyHex]], content: "m\(index)"
      ).signed(with: sender)
      let before = gateway.requestCount()
      let published = ContinuousClock.now
      try relay.didStore(message, receivedAt: Int64(Date().timeIntervalSince1970))
      let woke = await Polling.eventually(within: .seconds(10), every: .microseconds(200)) {
        gateway.requestCount() > before
      }
      precondition(woke, "message \(index) was not woken within 10 s")
      samples.append(Self.milliseconds(ContinuousClock.now - published))
    }
    await gateway.stop()
    return PipelineSamples.percentile(samples, 99)
  }

  /// The p99 of `count` `SELECT 1` round trips on a fresh connection to the server, in ms.
  static func selectOne(base: String, count: Int) throws -> Double {
    let connection = try PostgresConnection(connectionString: base)
    defer { connection.close() }
    var samples: [Double] = []
    for _ in 0..<count {
      let start = ContinuousClock.now
      try connection.query("SELECT 1")
      samples.append(milliseconds(ContinuousClock.now - start))
    }
    return PipelineSamples.percentile(samples, 99)
  }

  static func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
  }
}
