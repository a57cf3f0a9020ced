import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import NotificationResolver
import PushDescriptor
import PushLease
import PushRelay

extension BenchmarkRegistry {
  /// The PushRelay rows of `Docs/Performance.md`: lease accept at 100, 10 000 and 100 000 active leases
  /// (a tombstone between every two accepts) against the same accept at 100; the matcher's matched
  /// pairs per second over 100 000 planner-shaped leases against `Filter.matches` on the same
  /// pairs; published → wake through the fixture relay against one `/query` round trip plus one
  /// `synchronous=FULL` commit; and delivery of 10 000 pending wakes by one process.
  static func pushRelayBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    var rows: [Benchmark] = []
    var notes: [String] = []
    let sizes = quick ? [100, 1_000, 10_000] : [100, 10_000, 100_000]
    let accepts = quick ? 100 : 400
    let workloads = try sizes.map { try AcceptWorkload(otherLeases: $0) }
    defer { for workload in workloads { workload.remove() } }
    for (size, workload) in zip(sizes, workloads) {
      for percentile in [50.0, 99.0] {
        rows.append(
          Benchmark(
            module: "PushRelay", name: "lease accept p\(Int(percentile)) with \(size) active leases",
            unit: "ms",
            baselineName: "the same accept with \(sizes[0]) leases",
            target: percentile == 99 && size == sizes.last ? "p99 ≤ 2 × baseline" : "report",
            baseline: { try workloads[0].percentile(percentile, of: accepts) },
            measured: { try workload.percentile(percentile, of: accepts) },
            passes: { summary in
              guard percentile == 99, size == sizes.last, let baseline = summary.baselineMedian else {
                return nil
              }
              return summary.median <= 2 * baseline
            }))
      }
    }
    let matcher = MatcherWorkload(leases: quick ? 10_000 : 100_000, events: quick ? 100 : 400)
    rows.append(
      Benchmark(
        module: "PushRelay", name: "matcher over \(matcher.leaseCount) leases, one core", unit: "pairs/s",
        baselineName: "Filter.matches over the same events and woken leases", target: "≥ 1 000 000 pairs/s",
        baseline: { matcher.filterPairsPerSecond() }, measured: { matcher.matchedPairsPerSecond() },
        passes: { $0.median >= 1_000_000 }))
    notes.append(
      String(
        format:
          "matcher workload: %d leases, %d channels of ~%d members, %d events, %.1f leases woken per event",
        matcher.leaseCount, MatcherWorkload.channelCount, matcher.leaseCount / MatcherWorkload.channelCount,
        matcher.events.count, matcher.wokenPerEvent))
    if let demo = BenchBinaries.demoFolder() {
      let messages = quick ? 100 : 1_000
      var runs: [WakeLatencySamples] = []
      for _ in 0..<BenchmarkRunner.minimumRepetitions {
        runs.append(try blockingRun { try await WakeLatencyRun(demo: demo, messages: messages).run() })
      }
      for percentile in [50.0, 99.0] {
        let measured = FigureCursor(runs.map { PipelineSamples.percentile($0.wake, percentile) })
        let baseline = FigureCursor(runs.map { PipelineSamples.percentile($0.baseline, percentile) })
        rows.append(
          Benchmark(
            module: "PushRelay", name: "published → wake p\(Int(percentile)), \(messages) messages",
            unit: "ms",
            baselineName: "one NIP-98 /query + one synchronous=FULL commit p\(Int(percentile))",
            target: percentile == 99 ? "p99 ≤ 2 × baseline" : "report", baseline: { baseline.next() },
            measured: { measured.next() },
            passes: { summary in
              guard percentile == 99, let base = summary.baselineMedian else { return nil }
              return summary.median <= 2 * base
            }))
      }
    } else {
      notes.append("published → wake skipped: Fixtures/demo not found")
    }
    let pending = quick ? 2_000 : 10_000
    rows.append(
      Benchmark(
        module: "PushRelay", name: "delivery of \(pending) pending wakes, one process", unit: "wakes/s",
        baselineName: "—", target: "≥ 2 000 wakes/s", baseline: nil,
        measured: { try blockingRun { try await DeliveryRun(wakes: pending).run() } },
        passes: { $0.median >= 2_000 }))
    return (rows, notes)
  }
}

/// The demo-shaped descriptor of the relay-side rows.
enum BenchDescriptor {
  static let origin = "ws://127.0.0.1:48112"
  static let keyID = "load"

  static func make(pushKey: SecretKey) throws -> PushDescriptor {
    try PushDescriptor(
      strictJSON: Array(PushLoadRun.document(origin: origin, pubkey: pushKey.publicKeyHex).utf8))
  }

  /// A stand-in event for a lease row (the store keeps its bytes; nothing verifies it here).
  static func leaseEvent(id: String, pubkey: String, createdAt: Int64) -> Event {
    let sig = String(repeating: "0", count: 128)
    return try! Event(
      json:
        #"{"id":"\#(id)","pubkey":"\#(pubkey)","created_at":\#(createdAt),"kind":30350,"tags":[],"content":"","sig":"\#(sig)"}"#
    )
  }
}

/// A SQLite store holding `otherLeases` active leases of other authors, its live index loaded; each
/// timed accept is a fresh author's lease, followed (untimed) by that address's tombstone.
final class AcceptWorkload: @unchecked Sendable {
  let file = TemporarySQLiteFile(prefix: "push-accept")
  let store: SQLiteLeaseStore
  let now: Int64 = 1_767_226_200
  let roster = LoadRoster(channels: [:])
  private var random = SplitMix64(seed: 0x4143_4350)
  private var generation: Int64 = 0

  init(otherLeases: Int) throws {
    store = SQLiteLeaseStore(database: try PushStateDatabase(path: file.path))
    var seeds: [(lease: OpenedLease, event: Event)] = []
    for _ in 0..<otherLeases { seeds.append(nextLease()) }
    for chunk in stride(from: 0, to: seeds.count, by: 10_000) {
      _ = try store.seed(Array(seeds[chunk..<min(chunk + 10_000, seeds.count)]), maxLeases: 8, now: now)
    }
    let live = try store.liveLeases(origin: BenchDescriptor.origin, now: now).count
    precondition(live == otherLeases)
  }

  func remove() { file.remove() }

  private func hex(_ words: Int) -> String {
    (0..<words).map { _ in String(format: "%016llx", random.next()) }.joined()
  }

  /// A planner-shaped active lease of a fresh author.
  private func nextLease() -> (lease: OpenedLease, event: Event) {
    let pubkey = hex(4)
    let channel = String(format: "%08x-0000-4000-8000-%012x", random.next() % 1000, random.next() % 1000)
    let ignore = LeaseFilter(kinds: [9, 40002, 45001, 45003], authors: [pubkey])
    let subscriptions = [
      LeaseSubscription(
        filter: LeaseFilter(kinds: [9, 40002, 45001, 45003], pTags: [pubkey]), pushClass: "default",
        ignore: [ignore], pTagsMax: 20),
      LeaseSubscription(
        filter: LeaseFilter(kinds: [9], hTags: [channel]), pushClass: "default", ignore: [ignore],
        pTagsMax: 20),
    ]
    let endpoint = hex(8)
    let id = hex(4)
    let lease = OpenedLease(
      address: OpenedLease.Address(pubkey: pubkey, d: hex(2)), eventID: id, createdAt: now,
      expiration: now + 86_400, keyID: BenchDescriptor.keyID, origin: BenchDescriptor.origin, generation: 1,
      state: .active(
        appProfile: "org.nostrpushkit.demo", transport: "apns", endpoint: endpoint,
        endpointHash: Hex.encode(NostrSHA256.hash(Array(endpoint.utf8))), subscriptions: subscriptions))
    return (lease, BenchDescriptor.leaseEvent(id: id, pubkey: pubkey, createdAt: now))
  }

  /// The `percentile` of `count` accepts' times in milliseconds, a tombstone after each.
  func percentile(_ percentile: Double, of count: Int) throws -> Double {
    var samples: [Double] = []
    for _ in 0..<count {
      let (lease, event) = nextLease()
      let start = Stopwatch.mark()
      let answer = try store.accept(lease, event: event, maxLeases: 8, roster: roster, now: now)
      samples.append(Stopwatch.seconds(since: start) * 1000)
      precondition(answer == .accepted)
      var tombstone = lease
      tombstone.eventID = hex(4)
      tombstone.createdAt = now + 1
      tombstone.generation = 2
      tombstone.state = .tombstone
      let revoked = try store.accept(
        tombstone,
        event: BenchDescriptor.leaseEvent(
          id: tombstone.eventID, pubkey: lease.address.pubkey, createdAt: now + 1),
        maxLeases: 8, roster: roster, now: now)
      precondition(revoked == .accepted)
    }
    return PipelineSamples.percentile(samples, percentile)
  }
}

/// 100 000 planner-shaped leases (a mention subscription and one channel subscription, both with
/// the self ignore), 1 000 channels of ~100 members, channel messages by members of which a third
/// mention someone. The 16 authors are members of every channel (so a member list served for a
/// channel admits each of them, as the service row's upstream lists do).
final class MatcherWorkload: @unchecked Sendable {
  static let channelCount = 1_000
  static let origin = BenchDescriptor.origin
  let leaseCount: Int
  let events: [Event]
  /// The leases, in the order their `d` (hex of the position) gives.
  let leases: [StoredLease]
  /// Each channel's members: its leases' owners and the 16 authors.
  let members: [String: Set<String>]
  /// The seconds every lease and message is dated from.
  let now: Int64
  private var index: LeaseIndex
  private let roster: LoadRoster
  private let matcher = PushMatcher(pushKinds: [9, 40002, 45001, 45003, 1059])
  private let channels: [String]
  private let membersList: [String: [String]]
  private let authorKeys: [SecretKey]
  private let woken: [[StoredLease]]
  private let filters: [Filter]
  private let filterOwners: [Int]

  /// `count` leases and `eventCount` messages dated `now` (a fixed past second unless said).
  init(leases count: Int, events eventCount: Int, now: Int64 = 1_767_226_200) {
    var random = SplitMix64(seed: 0x5055_5348)
    func hex64() -> String { (0..<4).map { _ in String(format: "%016llx", random.next()) }.joined() }
    let channels = (0..<Self.channelCount).map { String(format: "%08x-0000-4000-8000-%012x", $0, $0) }
    let owners = (0..<count).map { _ in hex64() }
    let authorKeys = (0..<16).map { _ in SecretKey.generate() }
    var members: [String: Set<String>] = [:]
    var membersList: [String: [String]] = [:]
    var leases: [StoredLease] = []
    for channel in channels { members[channel] = Set(authorKeys.map(\.publicKeyHex)) }
    for (position, owner) in owners.enumerated() {
      let channel = channels[position % channels.count]
      members[channel, default: []].insert(owner)
      membersList[channel, default: []].append(owner)
      let ignore = LeaseFilter(kinds: [9, 40002, 45001, 45003], authors: [owner])
      let subscriptions = [
        LeaseSubscription(
          filter: LeaseFilter(kinds: [9, 40002, 45001, 45003], pTags: [owner]), pushClass: "default",
          ignore: [ignore], pTagsMax: 20),
        LeaseSubscription(
          filter: LeaseFilter(kinds: [9], hTags: [channel]), pushClass: "default", ignore: [ignore],
          pTagsMax: 20),
      ]
      let endpoint = "grant-\(position)"
      leases.append(
        StoredLease(
          address: LeaseAddress(origin: Self.origin, pubkey: owner, d: String(format: "%032x", position)),
          eventID: hex64(), createdAt: now - 60, expiresAt: now + 86_400, keyID: "k", generation: 1,
          active: true, endpointEnabled: true, appProfile: "app", transport: "apns", endpoint: endpoint,
          endpointHash: Hex.encode(NostrSHA256.hash(Array(endpoint.utf8))), subscriptions: subscriptions,
          eventJSON: []))
    }
    self.leaseCount = count
    self.now = now
    self.leases = leases
    self.members = members
    self.channels = channels
    self.membersList = membersList
    self.authorKeys = authorKeys
    let events = Self.messages(
      count: eventCount, seed: 0x4d53_4753, channels: channels, membersList: membersList, authors: authorKeys,
      now: now, label: "")
    self.events = events
    self.roster = LoadRoster(channels: members)
    var index = LeaseIndex(leases)
    let matcher = self.matcher
    let roster = self.roster
    let woken = events.map { event in
      matcher.candidates(
        for: event, leases: index.leases(for: event), roster: roster, origin: Self.origin, receivedAt: now,
        now: now
      ).map { wake in leases[Int(wake.address.d, radix: 16)!] }
    }
    var filters: [Filter] = []
    var filterOwners: [Int] = []
    for (position, pairs) in woken.enumerated() {
      for lease in pairs {
        for subscription in lease.subscriptions {
          filters.append(Self.nip01(subscription.filter))
          filterOwners.append(position)
        }
      }
    }
    self.index = index
    self.woken = woken
    self.filters = filters
    self.filterOwners = filterOwners
  }

  /// `count` more messages of the same shape (channel, author, a third mentioning a member), set
  /// `round` of them: each round's contents, so its ids, are new.
  func messages(count: Int, round: Int) -> [Event] {
    Self.messages(
      count: count, seed: 0x4d53_4753 &+ UInt64(round + 1), channels: channels, membersList: membersList,
      authors: authorKeys, now: now, label: "round \(round), ")
  }

  private static func messages(
    count: Int, seed: UInt64, channels: [String], membersList: [String: [String]], authors: [SecretKey],
    now: Int64, label: String
  ) -> [Event] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { position in
      let channel = channels[Int(random.next() % UInt64(channels.count))]
      let author = authors[position % authors.count]
      var tags = [["h", channel]]
      if position % 3 == 0, let someone = membersList[channel]?.randomElement(using: &random) {
        tags.append(["p", someone])
      }
      return try! UnsignedEvent(
        pubkey: author.publicKeyHex, createdAt: now, kind: 9, tags: tags,
        content: "message \(label)\(position)"
      ).signed(with: author)
    }
  }

  /// The matcher alone over the live index, in events per second (the service ingest row's
  /// baseline): the same passes as `matchedPairsPerSecond`, counted by event.
  func eventsPerSecond() -> Double {
    let (_, seconds) = matchPass()
    return Double(events.count) / seconds
  }

  /// Leases woken per event, on average.
  var wokenPerEvent: Double { Double(woken.reduce(0) { $0 + $1.count }) / Double(max(events.count, 1)) }

  /// The full matcher over the live index: rules 1–4 for every lease the event could match.
  func matchedPairsPerSecond() -> Double {
    let (pairs, seconds) = matchPass()
    return Double(pairs) / seconds
  }

  /// One timed pass of the matcher over every event: the pairs it found and the seconds it took.
  private func matchPass() -> (pairs: Int, seconds: Double) {
    var pairs = 0
    let seconds = Stopwatch.seconds {
      for event in events {
        guard let reading = matcher.read(event, roster: roster, origin: Self.origin) else { continue }
        pairs +=
          matcher.candidates(for: event, index: &index, reading: reading, receivedAt: now, now: now).count
      }
    }
    return (pairs, seconds)
  }

  /// NIP-01 `Filter.matches` alone over each event and its woken leases' subscription filters.
  func filterPairsPerSecond() -> Double {
    var sink = 0
    let seconds = Stopwatch.seconds {
      for (position, filter) in zip(filterOwners, filters) where filter.matches(events[position]) {
        sink += 1
      }
    }
    precondition(sink >= 0)
    return Double(woken.reduce(0) { $0 + $1.count }) / seconds
  }

  /// The NIP-01 filter of a lease filter.
  static func nip01(_ lease: LeaseFilter) -> Filter {
    var tags: [String: [String]] = [:]
    if let values = lease.pTags { tags["p"] = values }
    if let values = lease.hTags { tags["h"] = values }
    if let values = lease.eTags { tags["e"] = values }
    return Filter(authors: lease.authors, kinds: lease.kinds, tags: tags)
  }
}

/// One process delivering `wakes` pending wakes (one lease, one wake per event) to the gateway
/// fixture on loopback (quota off, answering at once) through `PushRelay.run()`; wakes per second.
struct DeliveryRun: Sendable {
  let wakes: Int

  func run() async throws -> Double {
    let now = Int64(Date().timeIntervalSince1970)
    let pushKey = SecretKey.generate()
    let descriptor = try BenchDescriptor.make(pushKey: pushKey)
    let pathFile = TemporarySQLiteFile(prefix: "push-delivery")
    defer { pathFile.remove() }
    let path = pathFile.path
    let database = try PushStateDatabase(path: path)
    let store = SQLiteLeaseStore(database: database)
    let outbox = SQLiteWakeOutbox(database: database)
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0))
    var base = try await gateway.start().absoluteString
    if base.hasSuffix("/") { base.removeLast() }
    let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "a1b2c3d4").grant
    let owner = SecretKey.generate().publicKeyHex
    let lease = OpenedLease(
      address: OpenedLease.Address(pubkey: owner, d: "delivery"), eventID: String(repeating: "1", count: 64),
      createdAt: now, expiration: now + 86_400, keyID: BenchDescriptor.keyID, origin: descriptor.origin,
      generation: 1,
      state: .active(
        appProfile: "org.nostrpushkit.demo", transport: "apns", endpoint: grant,
        endpointHash: Hex.encode(NostrSHA256.hash(Array(grant.utf8))), subscriptions: []))
    _ = try store.seed(
      [(lease, BenchDescriptor.leaseEvent(id: lease.eventID, pubkey: owner, createdAt: now))], maxLeases: 8,
      now: now)
    let candidates = (0..<wakes).map { position in
      WakeCandidate(
        address: LeaseAddress(origin: descriptor.origin, lease: lease.address), generation: 1,
        keyID: BenchDescriptor.keyID, endpoint: grant,
        endpointHash: Hex.encode(NostrSHA256.hash(Array(grant.utf8))),
        transport: "apns", eventID: String(format: "%064x", position), channel: nil, pushClass: "default",
        expiresAt: now + 3600)
    }
    _ = try outbox.enqueue(candidates, nowMilliseconds: now * 1000)
    let relay = try PushRelay(
      validator: try LeaseValidator(descriptor: descriptor, pushKeys: [BenchDescriptor.keyID: pushKey]),
      store: store, outbox: outbox, descriptor: descriptor, roster: LoadRoster(channels: [:]),
      gateway: try GatewayClient(baseURL: base, transport: URLSessionHTTPTransport(), timeout: .seconds(10)))
    let start = Stopwatch.mark()
    let running = Task { await relay.run() }
    let done = await Polling.eventually(within: .seconds(120), every: .milliseconds(10)) {
      gateway.requestCount() >= wakes
    }
    let seconds = Stopwatch.seconds(since: start)
    relay.stop()
    await running.value
    await gateway.stop()
    precondition(done, "the delivery run did not finish")
    precondition(gateway.deliveries().count == wakes, "not every wake was delivered once")
    return Double(wakes) / seconds
  }
}

/// Per-message milliseconds of published → wake and of the baseline (one `/query` round trip
/// plus one `synchronous=FULL` commit).
struct WakeLatencySamples: Sendable {
  var wake: [Double] = []
  var baseline: [Double] = []
}

/// The fixture relay in push mode on `Fixtures/demo` with the gateway fixture (quota off), the
/// demo account's lease for its channel, then `messages` channel messages from Alice, one at a
/// time over WebSocket: each is timed from the publish to the gateway's delivery.
struct WakeLatencyRun: Sendable {
  let demo: URL
  let messages: Int

  func run() async throws -> WakeLatencySamples {
    let parties = try DemoParties(demo: demo)
    let (account, sender, channel) = (parties.account, parties.sender, parties.channel)
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0))
    var gatewayURL = try await gateway.start().absoluteString
    if gatewayURL.hasSuffix("/") { gatewayURL.removeLast() }
    let relay = RelayFixtureServer(
      data: try RelayFixtureData.load(folder: demo),
      configuration: RelayFixtureConfiguration(
        port: 0, requestLogCapacity: 0,
        push: RelayFixturePushMode(pushKey: SecretKey.generate(), gatewayURL: gatewayURL)))
    try await relay.start()
    let commitPathFile = TemporarySQLiteFile(prefix: "push-commit")
    defer { commitPathFile.remove() }
    let commitPath = commitPathFile.path
    do {
      let samples = try await measure(
        relay: relay, gateway: gateway, account: account, sender: sender, channel: channel,
        commitOutbox: SQLiteWakeOutbox(database: try PushStateDatabase(path: commitPath)))
      await relay.stop()
      await gateway.stop()
      return samples
    } catch {
      await relay.stop()
      await gateway.stop()
      throw error
    }
  }

  private func measure(
    relay: RelayFixtureServer, gateway: GatewayFixture, account: SecretKey, sender: SecretKey,
    channel: String,
    commitOutbox: SQLiteWakeOutbox
  ) async throws -> WakeLatencySamples {
    guard let origin = relay.origin, let descriptor = relay.pushDescriptor,
      let pushKey = descriptor.currentKey,
      let profile = descriptor.appProfiles.first
    else { throw PipelineRunError("the fixture relay serves no push descriptor") }
    let now = Int64(Date().timeIntervalSince1970)
    let (grant, grantExpiresAt) = try gateway.issueGrant(relayPubkey: pushKey.pubkey, deviceToken: "a1b2c3d4")
    let subscriptions = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: account.publicKeyHex, joined: [channel])
    let lease = try LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
      endpoint: grant, subscriptions: subscriptions, generation: 1, createdAt: now,
      installationID: .generate(),
      grantExpiresAt: grantExpiresAt, now: now, signer: account)
    let appConnection = try await RelayConnection.connect(
      to: descriptor.origin, key: account, deadline: .now + .seconds(10))
    let enrolled = try await appConnection.publish(lease, deadline: .now + .seconds(10))
    await appConnection.close()
    guard enrolled.accepted else { throw PipelineRunError("lease refused: \(enrolled.message)") }
    let filters = try subscriptions.map { try Filter(jsonValue: $0.filter.jsonValue) }
    let baselineClient = RelayClient(
      origin: try RelayOrigin(origin), key: account, transport: URLSessionHTTPTransport.shared, clock: .system
    )
    let connection = try await RelayConnection.connect(
      to: try RelayOrigin(origin).webSocketURL, key: sender, deadline: .now + .seconds(10))
    defer { Task { await connection.close() } }
    var samples = WakeLatencySamples()
    for index in 0..<messages {
      let event = try UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: now, kind: 9,
        tags: [["h", channel]], content: "wake latency \(index)"
      ).signed(with: sender)
      let known = gateway.deliveries().count
      let published = ContinuousClock.now
      let answer = try await connection.publish(event, deadline: .now + .seconds(10))
      guard answer.accepted else { throw PipelineRunError("message \(index) refused: \(answer.message)") }
      let deadline = published + .seconds(10)
      while gateway.deliveries().count == known {
        guard ContinuousClock.now < deadline else { throw PipelineRunError("no wake for message \(index)") }
        try await Task.sleep(for: .microseconds(100))
      }
      let woke = ContinuousClock.now
      let queryStarted = ContinuousClock.now
      _ = try await baselineClient.query(
        filters, cap: RelayClient.messageQueryCap, deadline: .now + .seconds(10))
      _ = try commitOutbox.enqueue(
        [
          WakeCandidate(
            address: LeaseAddress(origin: origin, pubkey: account.publicKeyHex, d: "commit"), generation: 1,
            keyID: "k", endpoint: "e", endpointHash: "h", transport: "apns", eventID: event.id, channel: nil,
            pushClass: "default", expiresAt: now + 3600)
        ], nowMilliseconds: now * 1000)
      let baselineDone = ContinuousClock.now
      samples.wake.append(Self.milliseconds(published, woke))
      samples.baseline.append(Self.milliseconds(queryStarted, baselineDone))
    }
    return samples
  }

  private static func milliseconds(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Double
  {
    let (seconds, attoseconds) = (end - start).components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
  }
}
