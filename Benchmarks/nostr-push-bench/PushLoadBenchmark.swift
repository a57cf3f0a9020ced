import Dispatch
import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import PushDescriptor
import PushLease
import PushRelay

extension BenchmarkRegistry {
  /// The load run of issue 20: 10 000 messages against 1 000 leases, every wake through the gateway
  /// fixture over loopback (quota off) and a real SQLite outbox, once in process and once through
  /// the fixture relay's push mode (`PushFixtureLoadRun`); each run fails unless every expected
  /// (event, device) wake is delivered exactly once and no other. Its figures are notes (one run).
  static func pushLoadBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let result = try blockingRun {
      try await PushLoadRun(accounts: quick ? 200 : 1_000, messages: quick ? 2_000 : 10_000).run()
    }
    let throughFixture = try blockingRun {
      try await PushFixtureLoadRun(accounts: quick ? 200 : 1_000, messages: quick ? 2_000 : 10_000).run()
    }
    return ([], [result, throughFixture])
  }
}

/// One load run: accounts each leasing one device and joining one channel of two members,
/// messages by random accounts in random channels (a third also mentioning someone).
struct PushLoadRun: Sendable {
  let accounts: Int
  let messages: Int

  func run() async throws -> String {
    let now: Int64 = 1_767_226_200
    let relayKey = SecretKey.generate()
    let origin = "ws://127.0.0.1:48111"
    let descriptor = try PushDescriptor(
      strictJSON: Array(Self.document(origin: origin, pubkey: relayKey.publicKeyHex).utf8))
    let pathFile = TemporarySQLiteFile(prefix: "push-load")
    defer { pathFile.remove() }
    let path = pathFile.path
    let database = try PushStateDatabase(path: path)
    let store = SQLiteLeaseStore(database: database)
    let outbox = SQLiteWakeOutbox(database: database)
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0, now: now))
    let base = try await gateway.start().absoluteString
    let population = LoadPopulation(accounts: accounts, channelGroup: 2)
    let roster = LoadRoster(channels: population.members)
    let validator = try LeaseValidator(descriptor: descriptor, pushKeys: ["load": relayKey])
    let relay = try PushRelay(
      validator: validator, store: store, outbox: outbox, descriptor: descriptor, roster: roster,
      gateway: nil,
      clock: .fixed(now))
    let planner = SubscriptionPlanner(descriptor: descriptor)
    let builder = LeaseBuilder(descriptor: descriptor, appProfile: descriptor.appProfiles[0])
    let enrollStart = Stopwatch.mark()
    for (index, key) in population.keys.enumerated() {
      let lease = try population.lease(
        index, gateway: gateway, relayKey: relayKey, planner: planner, builder: builder, now: now)
      let answer = try relay.ingestLease(VerifiedEvent(alreadyVerified: lease), identity: key.publicKeyHex)
      precondition(answer.accepted, "lease \(index): \(answer.message)")
    }
    let enrollSeconds = Stopwatch.seconds(since: enrollStart)
    let (events, expected) = try LoadMessages.make(
      count: messages, seed: 0x4C4F_4144, population: population, now: now)
    let matchStart = Stopwatch.mark()
    for event in events { try relay.didStore(event, receivedAt: now) }
    let matchSeconds = Stopwatch.seconds(since: matchStart)
    let client = try GatewayClient(
      baseURL: base, transport: URLSessionHTTPTransport(), timeout: .milliseconds(10_000))
    let worker = DeliveryWorker(
      store: store, outbox: outbox, client: client, pushKeys: ["load": relayKey], roster: roster,
      clock: .fixed(now))
    let deliverStart = Stopwatch.mark()
    while try await !worker.runOnce().isEmpty {}
    let deliverSeconds = Stopwatch.seconds(since: deliverStart)
    await gateway.stop()
    let checked = LoadMessages.checkedSummary(
      gateway.deliveries(), wakes: try outbox.wakes(), expected: expected, messages: messages,
      accounts: accounts,
      enrollSeconds: enrollSeconds)
    return "PushRelay load: " + checked.text
      + String(
        format:
          ", match+enqueue %.0f messages/s, deliver %.0f wakes/s (loopback gateway fixture, 16 per claim)",
        Double(messages) / matchSeconds, Double(checked.delivered) / deliverSeconds)
  }

  static func document(origin: String, pubkey: String) -> String {
    #"""
    {"supported_nips":[1],"supported_extensions":["nip-pl"],"push":{"origin":"\#(origin)","keys":[{"id":"load","pubkey":"\#(pubkey)","current":true}],"app_profiles":[{"id":"org.nostrpushkit.demo","transport":"apns"}],"push_kinds":[9,40002,45001,45003],"urgent_kinds":[],"h_grammar":"uuid-v4-lowercase","class_support":{"apns":["silent","default","time_sensitive"]},"limitation":{"max_lease_ttl":2592000,"max_leases_per_pubkey":8,"max_subscriptions_per_lease":4,"max_kinds":8,"max_authors":64,"max_h":32,"max_tag_values":64,"max_ignore":256,"max_content_len":65536,"max_plaintext_len":4096,"max_endpoint_len":512,"max_string_len":256}}}
    """#
  }
}

/// The load run's rosters.
struct LoadRoster: RosterSource {
  var channels: [String: Set<String>]

  func members(ofChannel channel: String, origin: String) -> Set<String>? { channels[channel] }
}
