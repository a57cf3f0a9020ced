import EnrichmentCache
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import Testing

/// The extension's handoff (`WakeHandoff`, the seam under `NostrNotificationService`): each wake's
/// content goes to iOS exactly once, and on expiry synchronously, before anything is awaited.
@Suite(.timeLimit(.minutes(1))) struct WakeHandoffTests {
  /// What the content handlers received, in order, keyed by request identifier.
  final class Deliveries: Sendable {
    private let delivered = Locked<[(String, NotificationPlan)]>([])

    func deliver(_ requestID: String) -> @Sendable (NotificationPlan) -> Void {
      { plan in self.delivered.withLock { $0.append((requestID, plan)) } }
    }

    var all: [(String, NotificationPlan)] { delivered.current }
  }

  /// The relay answers the message query after 20 s; iOS says time is up at once. The handler is
  /// called before `expire()` returns — nothing was awaited, not even the query — with the
  /// fallback, and the normal path, finishing later, does not call it again.
  @Test func expiryCallsTheHandlerBeforeReturningAndOnlyOnce() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay(
      [scenario.message("late")],
      faults: [RelayFault(path: "/query", kind: 9, action: .delay(milliseconds: 20_000), times: 1)])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let session = NotificationResolver(
        configuration: configuration, cache: try folder.cache(), clock: .fixed(RelayScenario.now)
      ).start(deadline: .now + .seconds(30))
      let handoff = WakeHandoff()
      let deliveries = Deliveries()
      handoff.begin("wake-1", session: session, deliver: deliveries.deliver("wake-1"))
      let normal = Task { await handoff.complete("wake-1") }

      handoff.expire()
      let atExpiry = deliveries.all
      #expect(atExpiry.count == 1)
      #expect(atExpiry.first?.0 == "wake-1")
      #expect(atExpiry.first?.1.outcome.reason == .timeout)
      #expect(handoff.pendingRequestIDs.isEmpty)

      #expect(await normal.value == false)
      #expect(deliveries.all.count == 1)
    }
  }

  /// The bug this seam fixes: the final plan is there, the normal path waits on the claims file's
  /// write lock to mark it presented (another process holds it), and iOS says time is up. The handler
  /// is called before `expire()` returns, with the final plan, and only once.
  @Test func expiryDoesNotWaitForTheNormalPathsWrite() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let path = folder.path + "/cache.sqlite"
    let message = scenario.message("hello")
    let server = try await scenario.startRelay([message] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let patient = try EnrichmentCache(path: path, busyTimeout: .seconds(20), clock: { RelayScenario.now })
      let session = NotificationResolver(
        configuration: configuration, cache: patient, clock: .fixed(RelayScenario.now)
      ).start()
      let handoff = WakeHandoff()
      let deliveries = Deliveries()
      handoff.begin("wake-1", session: session, deliver: deliveries.deliver("wake-1"))
      #expect(await session.plan().outcome.notification?.target.eventID == message.id)
      // Claims live in their own file beside the cache: its write lock is what marking waits on.
      let lock = try ResolverLockedCacheTests.WriteLock(path: path + ".claims")
      let normal = Task { await handoff.complete("wake-1") }
      // Whatever the normal path is doing now (not started, or waiting on the lock to mark the
      // plan presented), the content is with iOS when `expire()` returns: the old shell, which
      // took the handler before awaiting the write, left it undelivered here.
      handoff.expire()
      #expect(deliveries.all.map(\.1.outcome.notification?.target.eventID) == [message.id])
      lock.release()
      _ = await normal.value
      #expect(deliveries.all.count == 1)
    }
  }

  /// Without expiry the normal path marks the plan presented before delivering it: the next wake
  /// finds the message already delivered.
  @Test func theNormalPathMarksThePlanPresentedThenDeliversIt() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let message = scenario.message("hello")
    let server = try await scenario.startRelay([message] + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let session = NotificationResolver(
        configuration: configuration, cache: try folder.cache(), clock: .fixed(RelayScenario.now)
      ).start()
      let handoff = WakeHandoff()
      let deliveries = Deliveries()
      handoff.begin("wake-1", session: session, deliver: deliveries.deliver("wake-1"))
      #expect(await handoff.complete("wake-1"))
      #expect(deliveries.all.map(\.1.outcome.notification?.target.eventID) == [message.id])
      handoff.expire()
      #expect(deliveries.all.count == 1)

      let next = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(next.outcome == .nothingNew(.alreadyDelivered, suppress: false))
    }
  }

  /// Two wakes on one extension instance each keep their own handler; a second registration of a
  /// pending identifier delivers the first one's content instead of orphaning its handler.
  @Test func wakesAreKeyedByRequestIdentifier() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("slow")],
      faults: [RelayFault(path: "/query", kind: 9, action: .delay(milliseconds: 20_000), times: 3)])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let resolver = NotificationResolver(
        configuration: configuration, cache: nil, clock: .fixed(RelayScenario.now))
      let handoff = WakeHandoff()
      let deliveries = Deliveries()
      handoff.begin(
        "a", session: resolver.start(deadline: .now + .seconds(30)), deliver: deliveries.deliver("a"))
      handoff.begin(
        "b", session: resolver.start(deadline: .now + .seconds(30)), deliver: deliveries.deliver("b"))
      #expect(deliveries.all.isEmpty)
      handoff.begin(
        "a", session: resolver.start(deadline: .now + .seconds(30)), deliver: deliveries.deliver("a2"))
      #expect(deliveries.all.map(\.0) == ["a"])
      #expect(Set(handoff.pendingRequestIDs) == ["a", "b"])
      handoff.expire()
      #expect(deliveries.all.map(\.0).sorted() == ["a", "a2", "b"])
      #expect(handoff.pendingRequestIDs.isEmpty)
    }
  }
}
