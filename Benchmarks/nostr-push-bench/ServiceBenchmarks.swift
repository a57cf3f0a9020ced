import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRelay
import PushRelayServer

extension BenchmarkRegistry {
  /// The push relay service rows of `Docs/Performance.md` (`--only service`):
  ///
  /// - ingest: events per second through `PushService`'s `ServiceIngest` (frame parse, verify,
  ///   window, event store, `PushRelay.didStore` → outbox), on one thread, 100 000 live leases,
  ///   against the matcher alone over the same leases and messages (`MatcherWorkload`), in the
  ///   same run. The row calls the ingest entry the upstream subscriber calls for each `EVENT`
  ///   frame, with the frame's own bytes, rather than feeding it from a relay over WebSocket: a
  ///   relay in this process would share the one core the row is about, and the socket read and
  ///   the thread hop are the subscriber's, not the ingest's. The latency row below covers the
  ///   path over sockets.
  /// - published → wake: one message at a time published to the fixture relay over WebSocket, the
  ///   service following it over WebSocket, its worker delivering to the gateway fixture over
  ///   HTTP, p99 over 500 messages, against one REQ → EVENT round trip to the same relay.
  ///
  /// Every repetition is measured here, before the runner reads the figures (as the pushrelay
  /// latency rows do), so that the services and their files are gone before the next group.
  static func serviceBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let repetitions = BenchmarkRunner.minimumRepetitions
    let ingest = try blockingRun {
      try await ServiceIngestRun(
        leases: quick ? 10_000 : 100_000, events: quick ? 100 : 200, repetitions: repetitions
      ).run()
    }
    let messages = quick ? 100 : 500
    let latency = try blockingRun {
      try await ServiceWakeRun(messages: messages, repetitions: repetitions).run()
    }
    let ingestFigures = FigureCursor(ingest.ingest)
    let matcherFigures = FigureCursor(ingest.matcher)
    let wakeFigures = FigureCursor(latency.map { PipelineSamples.percentile($0.wake, 99) })
    let roundTripFigures = FigureCursor(latency.map { PipelineSamples.percentile($0.roundTrip, 99) })
    let rows = [
      Benchmark(
        module: "PushRelayServer",
        name:
          "ingest (EVENT frame → verify → event store → didStore → outbox), \(ingest.leases) leases, one thread",
        unit: "events/s", baselineName: "the matcher alone over the same leases and messages",
        target: "≥ 0.5 × baseline", baseline: { matcherFigures.next() }, measured: { ingestFigures.next() },
        passes: { summary in summary.ratio.map { $0 >= 0.5 } }),
      Benchmark(
        module: "PushRelayServer",
        name: "published to the upstream → wake at the gateway fixture p99, \(messages) messages",
        unit: "ms", baselineName: "one REQ → EVENT round trip to the same upstream p99",
        target: "≤ 3 × baseline", baseline: { roundTripFigures.next() }, measured: { wakeFigures.next() },
        passes: { summary in summary.ratio.map { $0 <= 3 } }),
    ]
    let all = { (path: KeyPath<ServiceWakeSamples, [Double]>) in latency.flatMap { $0[keyPath: path] } }
    let notes = [
      String(
        format:
          "service ingest: %d rounds of %d new channel messages (a third mention a member) through PushService.ingest "
          + "as the upstream subscriber calls it (not over a socket), %d leases seeded in its SQLite store, "
          + "1 000 member lists ingested first; %.1f wakes enqueued per message against the matcher's %.1f "
          + "leases woken per message. Each message is two synchronous=FULL commits (event store, then "
          + "didStore's wakes): the ingest thread's CPU per message was %.0f µs (median of the rounds; %.0f "
          + "messages per CPU-second), and one synchronous=FULL commit on the same disk ran at %.0f/s "
          + "(median, measured after each round)",
        repetitions, ingest.eventsPerRound, ingest.leases, ingest.wakesPerEvent, ingest.matcherWokenPerEvent,
        BenchmarkRunner.median(ingest.cpuMicrosecondsPerEvent),
        1e6 / max(BenchmarkRunner.median(ingest.cpuMicrosecondsPerEvent), 1e-9),
        BenchmarkRunner.median(ingest.commitsPerSecond)),
      String(
        format:
          "service published → wake: fixture relay upstream, PushService, gateway fixture, all on loopback sockets "
          + "in this process; %d runs × %d kind 1 mentions of one enrolled lease, timed from the publish (before "
          + "its OK) to the gateway recording the wake (polled every 100 µs); over all samples wake min %.2f / "
          + "p50 %.2f / max %.2f ms, REQ → EVENT min %.2f / p50 %.2f / max %.2f ms",
        latency.count, messages, all(\.wake).min() ?? 0, PipelineSamples.percentile(all(\.wake), 50),
        all(\.wake).max() ?? 0, all(\.roundTrip).min() ?? 0, PipelineSamples.percentile(all(\.roundTrip), 50),
        all(\.roundTrip).max() ?? 0),
    ]
    return (rows, notes)
  }
}

/// A folder of the service's own files (configuration, keys, stores), removed by `remove()`.
struct ServiceBenchFolder {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("push-service-bench-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(
      atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  /// Writes `text` to `name`, mode 0600; the file's path.
  @discardableResult
  func write(_ name: String, _ text: String) throws -> String {
    let file = path + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
    return file
  }

  func remove() { try? FileManager.default.removeItem(atPath: path) }

  /// A service configuration in this folder: public origin `origin`, following `upstream`,
  /// delivering to `gateway` when given; the keys are written beside it.
  func configuration(origin: String, upstream: String, gateway: String?, pushKey: String) throws
    -> PushServiceConfiguration
  {
    try write("service.key", Self.newKey())
    try write("push.key", pushKey)
    let gatewayMember = gateway.map { #""gateway":"\#($0)","# } ?? ""
    let text = """
      {"public_url":"\(origin)","listen":"127.0.0.1:0","admin_listen":"127.0.0.1:0",
       "service_key_file":"service.key","push_key_files":["push.key"],
       "descriptor":{"app_profiles":[{"id":"org.nostrpushkit.demo","transport":"apns"}],
         "push_kinds":[1,9,40002,45001,45003,1059],"urgent_kinds":[],"h_grammar":"uuid-v4-lowercase",
         "class_support":{"apns":["silent","default","time_sensitive"]},
         "limitation":{"max_lease_ttl":2592000,"max_leases_per_pubkey":8,"max_subscriptions_per_lease":4,
           "max_kinds":8,"max_authors":64,"max_h":32,"max_tag_values":64,"max_ignore":256,
           "max_content_len":65536,"max_plaintext_len":4096,"max_endpoint_len":512,"max_string_len":256}},
       "store":{"sqlite":"state.sqlite"},\(gatewayMember)"upstreams":[{"url":"\(upstream)","auth":false}],
       "feeds":{"websocket":false,"http":false},"author_quota_bytes":67108864}
      """
    return try PushServiceConfiguration(json: Array(text.utf8), folder: path)
  }

  /// A new secret key's file text (64 hex).
  static func newKey() -> String { Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }
}

/// The ingest row's run: a service on a store seeded with the matcher workload's leases, its
/// upstream (the fixture relay, whose NIP-11 `self` signs the member lists) connected, then
/// `repetitions` rounds, each the matcher alone over its messages (the baseline) and then new
/// messages of the same shape through the service's ingest.
struct ServiceIngestRun: Sendable {
  let leases: Int
  let events: Int
  let repetitions: Int

  struct Figures: Sendable {
    var leases: Int
    var eventsPerRound: Int
    var ingest: [Double] = []
    var matcher: [Double] = []
    /// The ingest thread's CPU (user + system) per message, in µs, each round.
    var cpuMicrosecondsPerEvent: [Double] = []
    /// One `synchronous=FULL` commit per second on the same disk, after each round.
    var commitsPerSecond: [Double] = []
    var wakesPerEvent: Double = 0
    var matcherWokenPerEvent: Double = 0
  }

  func run() async throws -> Figures {
    let workload = MatcherWorkload(leases: leases, events: events, now: Int64(Date().timeIntervalSince1970))
    let folder = try ServiceBenchFolder()
    defer { folder.remove() }
    let rosterKey = SecretKey.generate()
    var data = RelayFixtureData()
    data.nip11 = Array(#"{"name":"bench upstream","self":"\#(rosterKey.publicKeyHex)"}"#.utf8)
    let upstream = RelayFixtureServer(data: data)
    let upstreamURL =
      "ws" + (try await upstream.start()).absoluteString.trimmingSuffix("/").dropFirst("http".count)
    let configuration = try folder.configuration(
      origin: MatcherWorkload.origin, upstream: upstreamURL, gateway: nil,
      pushKey: ServiceBenchFolder.newKey())
    try Self.seed(workload, path: folder.path + "/state.sqlite")
    let service = try await PushService.start(configuration)
    do {
      let figures = try await measure(
        service: service, workload: workload, upstream: configuration.upstreams[0].url, rosterKey: rosterKey)
      await service.stop()
      await upstream.stop()
      return figures
    } catch {
      await service.stop()
      await upstream.stop()
      throw error
    }
  }

  private func measure(
    service: PushService, workload: MatcherWorkload, upstream: String, rosterKey: SecretKey
  ) async throws -> Figures {
    // The member lists are trusted once the service has read the upstream's NIP-11.
    guard await Polling.eventually(within: .seconds(20), { service.metrics.isConnected(upstream) }) else {
      throw PipelineRunError("the service did not connect to its upstream")
    }
    let ingest = service.ingest
    for (channel, members) in workload.members.sorted(by: { $0.key < $1.key }) {
      let list = try UnsignedEvent(
        pubkey: rosterKey.publicKeyHex, createdAt: workload.now, kind: EventKind.groupMembers,
        tags: [["d", channel]] + members.sorted().map { ["p", $0] }, content: ""
      ).signed(with: rosterKey)
      try Self.ingest(Self.frame(list), ingest)
    }
    // Warm-up: the live index and the lease cache are read on the first messages.
    for frame in workload.messages(count: 20, round: -1).map(Self.frame) { try Self.ingest(frame, ingest) }
    var figures = Figures(leases: leases, eventsPerRound: events)
    let before = try service.relay.outbox.wakes().count
    for round in 0..<repetitions {
      let frames = workload.messages(count: events, round: round).map(Self.frame)
      figures.matcher.append(workload.eventsPerSecond())
      let cpuBefore = Self.threadCPUSeconds()
      let seconds = try Stopwatch.seconds {
        for frame in frames { try Self.ingest(frame, ingest) }
      }
      figures.cpuMicrosecondsPerEvent.append(
        (Self.threadCPUSeconds() - cpuBefore) * 1e6 / Double(frames.count))
      figures.ingest.append(Double(frames.count) / seconds)
      figures.commitsPerSecond.append(try FullCommitBaseline.perSecond(count: 100))
    }
    let wakes = try service.relay.outbox.wakes().count - before
    figures.wakesPerEvent = Double(wakes) / Double(events * repetitions)
    figures.matcherWokenPerEvent = workload.wokenPerEvent
    guard wakes > 0 else { throw PipelineRunError("the ingest rounds enqueued no wakes") }
    return figures
  }

  /// The calling thread's CPU time (user + system), in seconds.
  static func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  /// An upstream's `["EVENT",<sub>,<event>]` frame of `event`.
  static func frame(_ event: Event) -> [UInt8] {
    JSONWriter.bytes(.array([.string("EVENT"), .string("bench"), event.jsonValue]))
  }

  /// What the upstream subscriber does with one frame: parse it, then ingest its event.
  static func ingest(_ frame: [UInt8], _ ingest: ServiceIngest) throws {
    guard case .event(_, let value)? = RelayMessage.parse(frame) else {
      throw PipelineRunError("not an EVENT frame")
    }
    let outcome = ingest.ingest(value, size: frame.count, source: .upstream)
    guard outcome.result == .accepted else { throw PipelineRunError("ingest: \(outcome.message)") }
  }

  /// The workload's leases in the service's lease store, 10 000 to a transaction.
  static func seed(_ workload: MatcherWorkload, path: String) throws {
    let store = SQLiteLeaseStore(database: try PushStateDatabase(path: path))
    let seeds = try workload.leases.map { lease throws -> (lease: OpenedLease, event: Event) in
      guard let appProfile = lease.appProfile, let transport = lease.transport, let endpoint = lease.endpoint,
        let endpointHash = lease.endpointHash
      else { throw PipelineRunError("a workload lease without an endpoint") }
      let opened = OpenedLease(
        address: OpenedLease.Address(pubkey: lease.address.pubkey, d: lease.address.d),
        eventID: lease.eventID,
        createdAt: lease.createdAt, expiration: lease.expiresAt, keyID: lease.keyID,
        origin: lease.address.origin,
        generation: lease.generation,
        state: .active(
          appProfile: appProfile, transport: transport, endpoint: endpoint, endpointHash: endpointHash,
          subscriptions: lease.subscriptions))
      return (
        opened,
        BenchDescriptor.leaseEvent(
          id: lease.eventID, pubkey: lease.address.pubkey, createdAt: lease.createdAt)
      )
    }
    for chunk in stride(from: 0, to: seeds.count, by: 10_000) {
      let accepted = try store.seed(
        Array(seeds[chunk..<min(chunk + 10_000, seeds.count)]), maxLeases: 8, now: workload.now)
      guard accepted == min(10_000, seeds.count - chunk) else {
        throw PipelineRunError("seeded \(accepted) leases of a chunk")
      }
    }
  }
}

/// Per-message milliseconds of published → wake and of the baseline REQ → EVENT round trip.
struct ServiceWakeSamples: Sendable {
  var wake: [Double] = []
  var roundTrip: [Double] = []
}

/// The latency row's run: the gateway fixture (quota off), the fixture relay as the upstream, a
/// service following it and delivering to the gateway, one account's lease for kind 1 mentions
/// enrolled over the service's WebSocket; then `repetitions` runs of `messages` mentions published
/// to the upstream one at a time, each followed by one REQ for it on another connection.
struct ServiceWakeRun: Sendable {
  let messages: Int
  let repetitions: Int

  func run() async throws -> [ServiceWakeSamples] {
    let folder = try ServiceBenchFolder()
    defer { folder.remove() }
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0))
    let gatewayURL = (try await gateway.start()).absoluteString.trimmingSuffix("/")
    let upstream = RelayFixtureServer(data: RelayFixtureData())
    let upstreamURL =
      "ws" + (try await upstream.start()).absoluteString.trimmingSuffix("/").dropFirst("http".count)
    let pushKeyHex = ServiceBenchFolder.newKey()
    let pushKey = try SecretKey(hex: pushKeyHex)
    let service: PushService
    do {
      service = try await PushService.start(
        try folder.configuration(
          origin: "ws://127.0.0.1:48113", upstream: upstreamURL, gateway: gatewayURL, pushKey: pushKeyHex))
    } catch {
      await upstream.stop()
      await gateway.stop()
      throw error
    }
    do {
      let samples = try await measure(
        service: service, upstream: upstreamURL, gateway: gateway, pushKey: pushKey)
      await service.stop()
      await upstream.stop()
      await gateway.stop()
      return samples
    } catch {
      await service.stop()
      await upstream.stop()
      await gateway.stop()
      throw error
    }
  }

  private func measure(service: PushService, upstream: String, gateway: GatewayFixture, pushKey: SecretKey)
    async throws -> [ServiceWakeSamples]
  {
    let account = SecretKey.generate()
    let sender = SecretKey.generate()
    let descriptor = try RelayDocument(bytes: service.document).push
    let now = Int64(Date().timeIntervalSince1970)
    let grant = try gateway.issueGrant(relayPubkey: pushKey.publicKeyHex, deviceToken: "a1b2c3d4")
    let filter = try LeaseFilter(kinds: [1], pTags: [account.publicKeyHex], descriptor: descriptor)
    let lease = try LeaseBuilder(
      descriptor: descriptor, appProfile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
    ).active(
      endpoint: grant.grant, subscriptions: [try LeaseSubscription(filter: filter, class: "default")],
      generation: 1, createdAt: now, installationID: .generate(), now: now, signer: account)
    let enrollment = try await RelayConnection.connect(
      to: "ws://127.0.0.1:\(service.port)", key: account, deadline: .now + .seconds(10))
    let enrolled = try await enrollment.publish(lease, deadline: .now + .seconds(10))
    await enrollment.close()
    guard enrolled.accepted else { throw PipelineRunError("lease refused: \(enrolled.message)") }
    guard await Polling.eventually(within: .seconds(10), { service.metrics.openSubscriptions(upstream) > 0 })
    else { throw PipelineRunError("the service opened no REQ upstream") }
    let publisher = try await RelayConnection.connect(
      to: upstream, key: sender, deadline: .now + .seconds(10))
    let reader = try await RelayConnection.connect(to: upstream, key: account, deadline: .now + .seconds(10))
    defer {
      Task {
        await publisher.close()
        await reader.close()
      }
    }
    var runs: [ServiceWakeSamples] = []
    for run in 0..<repetitions {
      var samples = ServiceWakeSamples()
      for index in 0..<messages {
        let event = try UnsignedEvent(
          pubkey: sender.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970), kind: 1,
          tags: [["p", account.publicKeyHex]], content: "service wake \(run)-\(index)"
        ).signed(with: sender)
        let known = gateway.deliveries().count
        let published = ContinuousClock.now
        let answer = try await publisher.publish(event, deadline: .now + .seconds(10))
        guard answer.accepted else { throw PipelineRunError("message \(index) refused: \(answer.message)") }
        let deadline = published + .seconds(10)
        while gateway.deliveries().count == known {
          guard ContinuousClock.now < deadline else { throw PipelineRunError("no wake for message \(index)") }
          try await Task.sleep(for: .microseconds(100))
        }
        let woke = ContinuousClock.now
        let asked = ContinuousClock.now
        let found = try await reader.query([Filter(ids: [event.id])], deadline: .now + .seconds(10))
        let answered = ContinuousClock.now
        guard found.map(\.id) == [event.id] else {
          throw PipelineRunError("the REQ did not return message \(index)")
        }
        samples.wake.append(Self.milliseconds(published, woke))
        samples.roundTrip.append(Self.milliseconds(asked, answered))
      }
      guard gateway.deliveries().count == (run + 1) * messages else {
        throw PipelineRunError("\(gateway.deliveries().count) wakes after \(run + 1) runs of \(messages)")
      }
      runs.append(samples)
    }
    return runs
  }

  private static func milliseconds(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Double
  {
    let (seconds, attoseconds) = (end - start).components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
  }
}

extension String {
  /// The string without one trailing `suffix`, if it has one.
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
  }
}
