import EnrichmentCache
import Foundation
import GiftWrap
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import PushGateway
import PushRelay
import Testing

@testable import nostr_push

/// The pipeline's end-to-end tests (`Docs/CommandLine.md`): the demo's script in-process, every party on
/// one fixed clock (the relay's, which the production gateway shares and the resolver reads), then
/// with faults: APNs asking for a retry, the relay's `/query` down for a wake, a locked cache.
@Suite(.timeLimit(.minutes(2))) struct PipelineTests {
  static let base: Int64 = 1_800_000_000
  static let demo = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/demo")

  /// Everything one run needs; stops the fixtures when released.
  final class Run: LoopbackFixture, Sendable {
    let relay: RelayFixtureServer
    let gateway: DemoGateway
    let pipeline: DemoPipeline
    let lines = Lines()
    let workspace = NSTemporaryDirectory() + "pipeline-tests-" + UUID().uuidString

    init(whileWaiting: (@Sendable (RelayFixtureServer, DemoGateway) async -> Void)? = nil) async throws {
      try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
      // The gateway reads the relay's clock, which exists once the relay (given the gateway's
      // URL) does.
      let relayBox = RelayBox()
      let gateway = try await DemoGateway.start(
        directory: workspace, clock: UnixClock { (relayBox.relay?.now ?? PipelineTests.base) * 1000 },
        log: { _ in })
      let push = RelayFixturePushMode(
        pushKey: SecretKey.generate(), gatewayURL: gateway.baseURL,
        statePath: workspace + "/relay.sqlite")
      let relay = RelayFixtureServer(
        data: try RelayFixtureData.load(folder: PipelineTests.demo),
        configuration: RelayFixtureConfiguration(now: PipelineTests.base, push: push))
      relayBox.relay = relay
      _ = try await relay.start()
      let (sender, channel) = try DemoData.senderAndChannel(in: PipelineTests.demo)
      var pipeline = DemoPipeline(
        relay: relay, gateway: gateway,
        account: try SecretKeyFile.read(PipelineTests.demo.appendingPathComponent("account.key").path),
        sender: sender, channel: channel, workspace: workspace)
      pipeline.clock = { relay.now }
      let lines = self.lines
      pipeline.output = { lines.append($0) }
      pipeline.log = { _ in }
      if let whileWaiting { pipeline.whileWaiting = { await whileWaiting(relay, gateway) } }
      self.relay = relay
      self.gateway = gateway
      self.pipeline = pipeline
    }

    func stop() async {
      await relay.stop()
      await gateway.stop()
      try? FileManager.default.removeItem(atPath: workspace)
    }
  }

  /// The relay, once made (for the gateway's clock).
  final class RelayBox: @unchecked Sendable {
    // `@unchecked Sendable`: `stored` is read and written only under `lock`.
    private let lock = NSLock()
    private var stored: RelayFixtureServer?

    var relay: RelayFixtureServer? {
      get { lock.withLock { stored } }
      set { lock.withLock { stored = newValue } }
    }
  }

  /// The JSON lines a run printed.
  final class Lines: @unchecked Sendable {
    // `@unchecked Sendable`: `objects` is read and written only under `lock`.
    private let lock = NSLock()
    private var objects: [JSONObject] = []

    func append(_ bytes: [UInt8]) {
      guard let object = try? JSONReader().read(bytes).objectValue else { return }
      lock.withLock { objects.append(object) }
    }

    var all: [JSONObject] { lock.withLock { objects } }
  }

  @Test func runsTheScriptOnOneClockWithEveryField() async throws {
    let run = try await Run()
    try await run.serving {
      let origin = try #require(run.relay.origin)
      let succeeded = await run.pipeline.run()
      let lines = run.lines.all
      #expect(succeeded, "\(lines.last.map { JSONWriter.string(.object($0)) } ?? "no line")")
      #expect(
        lines.map { $0["step"]?.stringValue ?? "" } == [
          "discovered", "granted", "enrolled", "published", "wake", "notification", "published", "wake",
          "notification", "published", "wake", "notification", "revoked", "published", "silent",
        ])
      guard lines.count == 15 else { return }
      #expect(lines[0]["origin"] == .string("ws" + origin.dropFirst("http".count)))
      #expect(lines[0]["exec"] == .string("demo-2026-01"))
      #expect(lines[1]["expires_at"] == .integer(Self.base + 2_592_000))
      // The wake steps show the APNs request the production gateway sent, its JWT verified
      // with the run's key.
      for wake in [4, 7, 10] {
        #expect(lines[wake]["path"] == .string("/3/device/" + DemoPipeline.deviceToken))
        let headers = lines[wake]["headers"]?.objectValue
        #expect(headers?["apns-topic"] == .string(DemoGateway.appProfile))
        #expect(headers?["apns-push-type"] == .string("alert"))
        #expect(headers?["apns-priority"] == .string("10"))
        #expect(headers?["apns-id"] == lines[wake]["request_id"])
        #expect(headers?["apns-expiration"]?.stringValue.flatMap { Int64($0) }.map { $0 > Self.base } == true)
        #expect(headers?["authorization"] == nil)
        let jwt = lines[wake]["jwt"]?.objectValue
        #expect(jwt?["verified"] == .bool(true))
        #expect(jwt?["kid"] == .string(DemoGateway.keyID))
        #expect(jwt?["iss"] == .string(DemoGateway.teamID))
        #expect(jwt?["iat"] == .integer(Self.base))
        // Content-free: the body names no event and carries no text of the messages.
        let payload = try #require(lines[wake]["payload"]?.stringValue)
        #expect(payload.contains("mutable-content"))
        #expect(!payload.contains(lines[wake]["event_id"]?.stringValue ?? "-"))
        #expect(!payload.contains("Lunch"))
      }
      #expect(lines[2]["generation"] == .integer(1))
      #expect(lines[2]["d"]?.stringValue?.count == 32)
      for (published, wake, notification) in [(3, 4, 5), (6, 7, 8)] {
        #expect(lines[published]["kind"] == .integer(9))
        #expect(lines[wake]["event_id"] == lines[published]["event_id"])
        #expect(lines[wake]["request_id"]?.stringValue.map(LowercaseUUID.isValidV4) == true)
        #expect(lines[notification]["request_id"] == lines[wake]["request_id"])
        #expect(lines[notification]["target"]?.objectValue?["event_id"] == lines[published]["event_id"])
      }
      #expect(lines[5]["enrichment"] == .string("refreshed"))
      #expect(lines[8]["enrichment"] == .string("cache_fresh"))
      // The direct message: the wrap published and woken for, presented
      // with the sender's cached name and the text, `wrap_id` naming the wake's event.
      #expect(lines[9]["kind"] == .integer(1059))
      #expect(lines[9]["author"] == lines[3]["author"])
      #expect(lines[10]["event_id"] == lines[9]["event_id"])
      #expect(lines[11]["request_id"] == lines[10]["request_id"])
      #expect(lines[11]["wrap_id"] == lines[10]["event_id"])
      #expect(lines[11]["kind"] == .integer(14))
      #expect(lines[11]["title"] == .string("Alice Martin"))
      #expect(lines[11]["body"] == .string(DemoPipeline.directMessageText))
      #expect(lines[11]["relevance_score"] == .integer(1))
      #expect(lines[12]["generation"] == .integer(2))
      #expect(run.gateway.transport.exchanges.map(\.status) == [200, 200, 200])
      // No trace of the text in the cache: the database file and its WAL, byte for byte.
      let text = Array(DemoPipeline.directMessageText.utf8)
      var searched = 0
      for suffix in ["", "-wal"] {
        guard let bytes = FileManager.default.contents(atPath: run.workspace + "/cache.sqlite" + suffix)
        else {
          continue
        }
        searched += bytes.count
        #expect(!Array(bytes).contains(text), "cache.sqlite\(suffix) holds the direct message's text")
        #expect(!Array(bytes).contains(Array("between us".utf8)))
      }
      #expect(searched > 0)
      // The rumor's id is the one trace: the delivery claim.
      let rumorID = try #require(lines[11]["target"]?.objectValue?["event_id"]?.stringValue)
      #expect(rumorID != lines[10]["event_id"]?.stringValue)
    }
  }

  /// A gift wrap backdated 47 hours (NIP-59 allows two days) still wakes the device — the wake's
  /// expiry counts from when the relay received it — and the extension presents it, windowed by
  /// the rumor's own time.
  @Test func wakesAndPresentsAWrapBackdated47Hours() async throws {
    let run = try await Run()
    try await run.serving {
      let subscriptions = try await run.pipeline.enrollForTheDemoChannel()
      let message = try await run.pipeline.sendDirectMessage(
        text: "Backdated, still here.", backdate: try WrapBackdate(seconds: 47 * 3600))
      #expect(message.event.createdAt == Self.base - 47 * 3600)
      let wake = try await run.pipeline.wake(for: message)
      #expect(wake.eventID == message.event.id)
      let resolution = try await run.pipeline.resolveWake(subscriptions: subscriptions)
      #expect(resolution.plan.wrapID == message.event.id)
      #expect(resolution.outcome.notification?.body == "Backdated, still here.")
      #expect(resolution.outcome.notification?.kind == 14)
    }
  }

  /// APNs answers the first attempt 503 with `retry-after: 1` (the gateway answers the relay 503
  /// `retry_after_seconds: 1`): the wake arrives once the shared clock has moved a second, with
  /// the same `request_id` as its `apns-id`.
  @Test func deliversAfterTheGatewaysRetryWithTheSameRequestID() async throws {
    let run = try await Run { relay, gateway in
      // Once the worker has written the retry (the row back to pending), move the shared clock
      // past its backoff; never before, so the retry is always scheduled from the original time.
      let retrying = ((try? relay.wakes()) ?? []).contains { $0.state == .pending && $0.attempts == 1 }
      let answered = gateway.transport.exchanges.map(\.status)
      if retrying, answered == [503], relay.now < PipelineTests.base + 3 {
        relay.advanceClock(by: .seconds(1))
      }
    }
    try await run.serving {
      run.gateway.transport.script(
        DemoPipeline.deviceToken,
        .response(
          APNsResponse(
            status: 503, headers: ["retry-after": "1"], body: Array(#"{"reason":"ServiceUnavailable"}"#.utf8))
        ))
      _ = try await run.pipeline.enrollForTheDemoChannel()
      let message = try await run.pipeline.publishMention()
      let wake = try await run.pipeline.wake(for: message)
      let exchanges = run.gateway.transport.exchanges
      #expect(exchanges.map(\.status) == [503, 200])
      #expect(
        exchanges.map { $0.request.headers.first { $0.name == "apns-id" }?.value } == [
          wake.requestID, wake.requestID,
        ])
      #expect(wake.eventID == message.event.id)
    }
  }

  /// `/query` down for wake 1: the fallback, nothing claimed; wake 2 presents the newest
  /// unclaimed message (the thread reply) and covers the first (`more_count` 1); a third wake has
  /// nothing new.
  @Test func presentsWhatAWakeMissedOnTheNextWakes() async throws {
    let run = try await Run()
    try await run.serving {
      let subscriptions = try await run.pipeline.enrollForTheDemoChannel()
      let first = try await run.pipeline.publishMention()
      _ = try await run.pipeline.wake(for: first)
      run.relay.setFaults([RelayFault(path: "/query", action: .status(503))])
      let missed = try await run.pipeline.resolveWake(subscriptions: subscriptions)
      run.relay.setFaults([])
      let reply = try await run.pipeline.publishReply(to: first)
      _ = try await run.pipeline.wake(for: reply)
      let second = try await run.pipeline.resolveWake(subscriptions: subscriptions)
      let third = try await run.pipeline.resolveWake(subscriptions: subscriptions)
      #expect(missed.outcome == .fallback(.relayError))
      #expect(missed.plan.title == "New message")
      #expect(second.outcome.notification?.target.eventID == reply.event.id)
      #expect(second.outcome.notification?.moreCount == 1)
      #expect(third.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  /// Another process holds the cache's write lock through the whole wake: the notification is
  /// still presented, enriched from the relay.
  @Test func presentsTheWakeWhileAnotherProcessLocksTheCache() async throws {
    let run = try await Run()
    try await run.serving {
      let subscriptions = try await run.pipeline.enrollForTheDemoChannel()
      let message = try await run.pipeline.publishMention()
      _ = try await run.pipeline.wake(for: message)
      let locker = try await CacheLocker.lock(path: run.workspace + "/cache.sqlite")
      // The lock is real: the cache cannot even be opened while it is held.
      #expect(throws: CacheError.self) {
        try EnrichmentCache(path: run.workspace + "/cache.sqlite", busyTimeout: .milliseconds(50))
      }
      let resolution = try await run.pipeline.resolveWake(subscriptions: subscriptions)
      await locker.release()
      #expect(resolution.outcome.notification?.target.eventID == message.event.id)
      #expect(resolution.outcome.notification?.title == "Alice Martin")
    }
  }
}

extension NotificationOutcome {
  /// The notification, when resolved.
  fileprivate var notification: ResolvedNotification? {
    if case .resolved(let notification) = self { return notification }
    return nil
  }
}

/// A `python3` process holding `BEGIN EXCLUSIVE` on a SQLite file until released (or 30 s).
final class CacheLocker: Sendable {
  private let process: ChildProcess

  private init(_ process: ChildProcess) { self.process = process }

  /// Returns once the lock is held.
  static func lock(path: String) async throws -> CacheLocker {
    // `time.sleep(30)` is the lock's lifetime (the locked cache under test), not a wait for anything.
    let script = """
      import sqlite3, sys, time
      c = sqlite3.connect(sys.argv[1], isolation_level=None)
      c.execute("PRAGMA journal_mode=WAL"); c.execute("BEGIN EXCLUSIVE")
      print("locked", flush=True); time.sleep(30)
      """
    let process = try await ChildProcess.start(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, path])
    let locker = CacheLocker(process)
    guard await process.firstLine() == Array("locked\n".utf8) else {
      await locker.release()
      throw NotLocked()
    }
    return locker
  }

  /// Ends the lock (kills the process) and awaits the process's end.
  func release() async {
    process.send(SIGKILL)
    _ = await process.exited()
  }

  /// The locking process ended without saying `locked`.
  struct NotLocked: Error {}
}
