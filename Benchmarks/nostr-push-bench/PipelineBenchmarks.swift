import Dispatch
import EnrichmentCache
import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import NotificationResolver
import PushDescriptor
import PushLease
import PushRelay

extension BenchmarkRegistry {
  /// The pipeline rows of issue 21 (`Docs/CommandLine.md`): over `PipelineRun.messages` messages, the time
  /// from the relay's `OK` to the gateway fixture recording the APNs request (published → wake) and
  /// from there to `NotificationResolver.resolve()` returning that event's notification
  /// (wake → notification), p50 and p99, each beside the p50 / p99 of one NIP-98 `/query` round
  /// trip measured in the same run (one query after each message). One repetition is one whole run
  /// on fresh fixtures; the runner's five repetitions give the median, min and max of each figure.
  /// Everything runs twice: with the delivery worker's default sweep interval (100 ms, which
  /// published → wake includes) and with a 5 ms sweep.
  static func pipelineBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    guard let demo = BenchBinaries.demoFolder() else {
      return ([], ["pipeline rows skipped: Fixtures/demo not found"])
    }
    let messages = quick ? 50 : PipelineRun.messages
    var rows: [Benchmark] = []
    var notes: [String] = []
    for sweep in [Duration.seconds(1)] {
      var runs: [PipelineSamples] = []
      for _ in 0..<BenchmarkRunner.minimumRepetitions {
        runs.append(
          try blockingRun {
            try await PipelineRun(demo: demo, messages: messages, sweepInterval: sweep).run()
          })
      }
      let label = "signal-woken worker, \(sweep.wholeMilliseconds) ms fallback"
      let module = "pipeline (\(label))"
      for (figure, samples) in [
        ("published → wake", \PipelineSamples.wake), ("wake → notification", \PipelineSamples.notification),
      ] as [(String, KeyPath<PipelineSamples, [Double]>)] {
        for percentile in [50.0, 99.0] {
          let name = "\(figure) p\(Int(percentile)), \(messages) messages"
          let measured = FigureCursor(
            runs.map { PipelineSamples.percentile($0[keyPath: samples], percentile) })
          let baseline = FigureCursor(runs.map { PipelineSamples.percentile($0.query, percentile) })
          rows.append(
            Benchmark(
              module: module, name: name, unit: "ms",
              baselineName: "one NIP-98 /query round trip p\(Int(percentile))",
              target: figure == "published → wake" ? "report (includes the \(label))" : "report",
              baseline: { baseline.next() }, measured: { measured.next() }, passes: { _ in nil }))
        }
      }
      let all = { (path: KeyPath<PipelineSamples, [Double]>) in runs.flatMap { $0[keyPath: path] } }
      notes.append(
        String(
          format:
            "pipeline, %@: %d runs × %d messages, every wake and notification for its own event; over all samples published → wake min %.2f / max %.2f ms, wake → notification min %.2f / max %.2f ms, /query min %.2f / max %.2f ms (gateway polled every %d µs; a random pause within one sweep before each publish; one cache file per run, opened per wake as an extension would)",
          label, runs.count, messages, all(\.wake).min() ?? 0, all(\.wake).max() ?? 0,
          all(\.notification).min() ?? 0, all(\.notification).max() ?? 0, all(\.query).min() ?? 0,
          all(\.query).max() ?? 0, Int(PipelineRun.pollInterval.components.attoseconds / 1_000_000_000_000)))
    }
    return (rows, notes)
  }
}

/// Hands out precomputed per-repetition figures, one per call, in order (the runner calls a row's
/// closures once per repetition).
final class FigureCursor {
  private let figures: [Double]
  private var index = 0

  init(_ figures: [Double]) { self.figures = figures }

  func next() -> Double {
    defer { index += 1 }
    return figures[index % figures.count]
  }
}

/// The milliseconds of one pipeline run, one sample per message for each hop and for the baseline.
struct PipelineSamples: Sendable {
  var wake: [Double] = []
  var notification: [Double] = []
  var query: [Double] = []

  /// The nearest-rank percentile of `values`.
  static func percentile(_ values: [Double], _ percentile: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((percentile / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
  }
}

/// One run of the whole pipeline on IPv4 loopback: the gateway fixture (quota off) and the fixture
/// relay in push mode on `Fixtures/demo` (a free port, the system clock), the demo account enrolled
/// for mentions and the demo channel with a NIP-44 lease published over WebSocket with NIP-42,
/// then `messages` channel messages from Alice, one at a time; each must cause one wake for its
/// own event and resolve into that event's notification, or the run fails. Before each publish
/// the run pauses a random time within one sweep interval (not timed), so published → wake samples
/// the worker's timer at every phase instead of locking onto it.
struct PipelineRun: Sendable {
  /// The messages of a full run (`Docs/CommandLine.md`).
  static let messages = 200
  /// The short sweep interval reported beside the default.
  static let shortSweep: Duration = .milliseconds(5)
  /// How often the gateway's recorded deliveries are read while waiting for a wake.
  static let pollInterval: Duration = .microseconds(100)
  /// The seed of the random pause before each publish (uniform over one sweep interval).
  static let pacingSeed: UInt64 = 0x5049_5045
  /// How long one step (a publish, a wake, a resolve) may take before the run fails.
  static let stepTimeout: Duration = .seconds(10)
  /// The device token of the enrolled account (a test value; the gateway fixture never reaches APNs).
  static let deviceToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
  /// The app profile the demo descriptor advertises.
  static let appProfile = "org.nostrpushkit.demo"

  let demo: URL
  let messages: Int
  let sweepInterval: Duration

  func run() async throws -> PipelineSamples {
    let parties = try DemoParties(demo: demo)
    let (account, sender, channel) = (parties.account, parties.sender, parties.channel)
    let workspace = NSTemporaryDirectory() + "nostr-push-pipeline-bench-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: workspace) }

    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0))
    var gatewayURL = try await gateway.start().absoluteString
    if gatewayURL.hasSuffix("/") { gatewayURL.removeLast() }
    let relay = RelayFixtureServer(
      data: try RelayFixtureData.load(folder: demo),
      configuration: RelayFixtureConfiguration(
        port: 0, requestLogCapacity: 0,
        push: RelayFixturePushMode(
          pushKey: SecretKey.generate(), gatewayURL: gatewayURL, fallbackInterval: sweepInterval)))
    do {
      try await relay.start()
    } catch {
      await gateway.stop()
      throw error
    }
    do {
      let samples = try await measure(
        relay: relay, gateway: gateway, account: account, sender: sender, channel: channel,
        workspace: workspace)
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
    channel: String, workspace: String
  ) async throws -> PipelineSamples {
    guard let origin = relay.origin, let descriptor = relay.pushDescriptor,
      let pushKey = descriptor.currentKey,
      let profile = descriptor.appProfiles.first(where: { $0.id == Self.appProfile && $0.transport == "apns" }
      )
    else { throw PipelineRunError("the fixture relay serves no push descriptor with the demo app profile") }
    let now = Int64(Date().timeIntervalSince1970)
    let (grant, grantExpiresAt) = try gateway.issueGrant(
      relayPubkey: pushKey.pubkey, deviceToken: Self.deviceToken)
    let subscriptions = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: account.publicKeyHex, joined: [channel])
    let lease = try LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
      endpoint: grant, subscriptions: subscriptions, generation: 1, createdAt: now,
      installationID: .generate(), grantExpiresAt: grantExpiresAt, now: now, signer: account)
    let appConnection = try await RelayConnection.connect(
      to: descriptor.origin, key: account, deadline: .now + Self.stepTimeout)
    let enrolled = try await appConnection.publish(lease, deadline: .now + Self.stepTimeout)
    await appConnection.close()
    guard enrolled.accepted else { throw PipelineRunError("lease refused: \(enrolled.message)") }
    let filters = try subscriptions.map { try Filter(jsonValue: $0.filter.jsonValue) }

    let relayOrigin = try RelayOrigin(origin)
    let configuration = try ResolverConfiguration(
      relay: relayOrigin, secretKey: account, filters: filters, avatarDirectory: workspace + "/avatars")
    let baselineClient = RelayClient(
      origin: relayOrigin, key: account, transport: URLSessionHTTPTransport.shared, clock: .system)
    let senderConnection = try await RelayConnection.connect(
      to: relayOrigin.webSocketURL, key: sender, deadline: .now + Self.stepTimeout)
    do {
      let samples = try await messagesLoop(
        connection: senderConnection, gateway: gateway, relay: relay, sender: sender, channel: channel,
        now: now, configuration: configuration, baselineClient: baselineClient, filters: filters,
        cachePath: workspace + "/cache.sqlite")
      await senderConnection.close()
      return samples
    } catch {
      await senderConnection.close()
      throw error
    }
  }

  /// Publishes the messages one at a time and times each hop and one baseline query.
  private func messagesLoop(
    connection senderConnection: RelayConnection, gateway: GatewayFixture, relay: RelayFixtureServer,
    sender: SecretKey, channel: String, now: Int64, configuration: ResolverConfiguration,
    baselineClient: RelayClient, filters: [Filter], cachePath: String
  ) async throws -> PipelineSamples {

    // Distinct, past `created_at` seconds: the newest unclaimed message is always the one just sent.
    let firstCreatedAt = now - Int64(messages)
    var samples = PipelineSamples()
    var random = SplitMix64(seed: Self.pacingSeed)
    for index in 0..<messages {
      // A random phase against the worker's timer, as messages from people would have; without it
      // every publish would land the same time after the previous sweep.
      let pause = Int64(random.next() % UInt64(max(sweepInterval.components.attoseconds / 1_000_000_000, 1)))
      try await Task.sleep(for: .nanoseconds(pause))
      let event = try UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: firstCreatedAt + Int64(index), kind: 9,
        tags: [["h", channel]],
        content: "Pipeline message \(index) in the demo channel."
      ).signed(with: sender)
      let known = gateway.deliveries().count
      let answer = try await senderConnection.publish(event, deadline: .now + Self.stepTimeout)
      let published = ContinuousClock.now
      guard answer.accepted else { throw PipelineRunError("message \(index) refused: \(answer.message)") }

      let deadline = published + Self.stepTimeout
      var deliveries = gateway.deliveries()
      while deliveries.count == known {
        guard ContinuousClock.now < deadline else { throw PipelineRunError("no wake for message \(index)") }
        try await Task.sleep(for: Self.pollInterval)
        deliveries = gateway.deliveries()
      }
      let woke = ContinuousClock.now

      let cache = try EnrichmentCache(path: cachePath, busyTimeout: .milliseconds(250))
      let resolution = await NotificationResolver(configuration: configuration, cache: cache).resolve()
      let notified = ContinuousClock.now

      guard deliveries.count == known + 1 else {
        throw PipelineRunError("message \(index) caused \(deliveries.count - known) wakes")
      }
      let requestID = deliveries[known].requestID
      guard let row = try relay.wakes().first(where: { $0.requestID == requestID }),
        row.candidate.eventID == event.id
      else { throw PipelineRunError("wake \(requestID) is not for message \(index)") }
      guard case .resolved(let notification) = resolution.outcome, notification.target.eventID == event.id
      else { throw PipelineRunError("message \(index) resolved to \(resolution.outcome)") }
      _ = await resolution.lingering.wait(until: .now + Self.stepTimeout)

      let queryStarted = ContinuousClock.now
      _ = try await baselineClient.query(
        filters, cap: RelayClient.messageQueryCap, deadline: queryStarted + Self.stepTimeout)
      let queried = ContinuousClock.now

      samples.wake.append(Self.milliseconds(published, woke))
      samples.notification.append(Self.milliseconds(woke, notified))
      samples.query.append(Self.milliseconds(queryStarted, queried))
    }
    return samples
  }

  private static func milliseconds(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Double
  {
    let duration = start.duration(to: end).components
    return Double(duration.seconds) * 1000 + Double(duration.attoseconds) / 1e15
  }
}

/// Why a pipeline run stopped: a step that did not happen as it should.
struct PipelineRunError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) { self.description = description }
}
