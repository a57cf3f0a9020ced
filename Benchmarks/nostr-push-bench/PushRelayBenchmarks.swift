import Foundation
import NostrEvent
import NostrPushTestSupport
import PushLease
import PushRelay

extension BenchmarkRegistry {
  /// The PushRelay rows: matcher throughput (events/s, through `LeaseIndex`) over 1 000 and
  /// 10 000 active leases, beside the same events through `Filter.matches` alone over every filter
  /// of the same leases (what a relay without an index does at the least).
  ///
  /// Leases are planner-shaped (a mention subscription and one channel subscription, both with the
  /// self ignore); events are a mix of channel messages, mentions and gift wraps. Report-only rows:
  /// `performance.md` gives no target, so the ratio says what the rules beyond NIP-01 matching cost.
  static func pushRelayBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    var rows: [Benchmark] = []
    for leaseCount in [1_000, 10_000] {
      let world = MatcherWorkload(leases: leaseCount, events: quick ? 100 : 400)
      rows.append(
        Benchmark(
          module: "PushRelay", name: "PushMatcher over \(leaseCount) active leases", unit: "events/s",
          baselineName: "Filter.matches alone (same events, same filters)", target: "report the ratio",
          baseline: { world.eventsPerSecond { world.filterOnly($0) } },
          measured: { world.eventsPerSecond { world.match($0) } },
          passes: { _ in nil }))
    }
    return (rows, [])
  }
}

/// A seeded set of leases, rosters and events for the matcher rows.
struct MatcherWorkload {
  static let origin = "wss://bench.example"
  static let channels = (0..<64).map { index in
    String(format: "%08x-0000-4000-8000-%012x", index, index)
  }
  let leases: [StoredLease]
  let index: IndexBox
  let filters: [Filter]
  let events: [Event]
  let roster: BenchRoster
  let matcher = PushMatcher(pushKinds: [9, 40002, 45001, 45003, 1059])
  let now: Int64 = 1_767_226_200

  init(leases count: Int, events eventCount: Int) {
    var random = SplitMix64(seed: 0x5055_5348)
    func hex64() -> String {
      (0..<4).map { _ in String(format: "%016llx", random.next()) }.joined()
    }
    let owners = (0..<count).map { _ in hex64() }
    var members: [String: Set<String>] = [:]
    var leases: [StoredLease] = []
    var filters: [Filter] = []
    for (index, owner) in owners.enumerated() {
      let channel = Self.channels[index % Self.channels.count]
      members[channel, default: []].insert(owner)
      let ignore = LeaseFilter(kinds: [9, 40002, 45001, 45003], authors: [owner])
      let subscriptions = [
        LeaseSubscription(
          filter: LeaseFilter(kinds: [9, 40002, 45001, 45003], pTags: [owner]), pushClass: "default",
          ignore: [ignore], pTagsMax: 20),
        LeaseSubscription(
          filter: LeaseFilter(kinds: [9], hTags: [channel]), pushClass: "default", ignore: [ignore],
          pTagsMax: 20),
      ]
      let endpoint = "grant-\(index)"
      leases.append(
        StoredLease(
          address: LeaseAddress(origin: Self.origin, pubkey: owner, d: String(format: "%032x", index)),
          eventID: hex64(), createdAt: now - 60, expiresAt: now + 86_400, keyID: "k", generation: 1,
          active: true,
          endpointEnabled: true, appProfile: "app", transport: "apns", endpoint: endpoint,
          endpointHash: Hex.encode(SHA256.hash(Array(endpoint.utf8))), subscriptions: subscriptions,
          eventJSON: []))
    }
    let author = SecretKey.generate()
    var events: [Event] = []
    for index in 0..<eventCount {
      let channel = Self.channels[Int(random.next() % UInt64(Self.channels.count))]
      var tags = [["h", channel]]
      if index % 3 == 0 { tags.append(["p", owners[Int(random.next() % UInt64(owners.count))]]) }
      let kind = index % 10 == 9 ? 1059 : 9
      events.append(
        try! UnsignedEvent(
          pubkey: author.publicKeyHex, createdAt: now, kind: kind, tags: tags, content: "m \(index)"
        )
        .signed(with: author))
    }
    for lease in leases {
      for subscription in lease.subscriptions {
        filters += ([subscription.filter] + subscription.ignore).map(Self.nip01)
      }
    }
    self.leases = leases
    self.index = IndexBox(LeaseIndex(leases))
    self.filters = filters
    self.events = events
    self.roster = BenchRoster(channels: members)
  }

  /// The full matcher over the lease index: rules 1–4 for every lease the event could match.
  func match(_ event: Event) -> Int {
    let leases = index.leases(for: event)
    return matcher.candidates(
      for: event, leases: leases, roster: roster, origin: Self.origin, receivedAt: now, now: now
    ).count
  }

  /// The NIP-01 filter of a lease filter.
  static func nip01(_ lease: LeaseFilter) -> Filter {
    var tags: [String: [String]] = [:]
    if let values = lease.pTags { tags["p"] = values }
    if let values = lease.hTags { tags["h"] = values }
    if let values = lease.eTags { tags["e"] = values }
    return Filter(authors: lease.authors, kinds: lease.kinds, tags: tags)
  }

  /// NIP-01 matching alone: every filter and ignore filter of every lease.
  func filterOnly(_ event: Event) -> Int {
    filters.reduce(0) { $0 + ($1.matches(event) ? 1 : 0) }
  }

  /// Events per second of `body` over the whole event set (one repetition).
  func eventsPerSecond(_ body: (Event) -> Int) -> Double {
    var sink = 0
    let seconds = Stopwatch.seconds { for event in events { sink &+= body(event) } }
    precondition(sink >= 0)
    return Double(events.count) / seconds
  }
}

/// Channel rosters of the workload.
struct BenchRoster: RosterSource {
  var channels: [String: Set<String>]

  func members(ofChannel channel: String, origin: String) -> Set<String>? { channels[channel] }
}

/// The live index behind a reference, as the store holds it (mutated under one lock).
final class IndexBox: @unchecked Sendable {
  private var index: LeaseIndex
  init(_ index: LeaseIndex) { self.index = index }
  func leases(for event: Event) -> [StoredLease] { index.leases(for: event) }
}
