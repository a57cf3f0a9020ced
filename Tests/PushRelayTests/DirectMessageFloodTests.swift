import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushLease
import PushRelay
import Testing

/// `Docs/Robustness.md`: gift wraps from strangers cannot use up the gateway's per-device quota and
/// starve the member's real wakes: the relay bounds and coalesces direct-message wakes per lease,
/// and a quota refusal (429) is retried, never final.
@Suite(.timeLimit(.minutes(2))) struct DirectMessageFloodTests {
  static let token = "d00dfeed"

  /// The account's lease with the planner's subscriptions, direct messages included.
  static func lease(in world: PushWorld) throws {
    let subscriptions = try SubscriptionPlanner(descriptor: Demo.descriptor).plan(
      for: Demo.account.publicKeyHex, joined: [Demo.channel], directMessages: true)
    let answer = try world.publish(
      lease: Demo.lease(
        endpoint: try world.grant(token: token), generation: 1, d: .generate(), subscriptions: subscriptions))
    #expect(answer.accepted, "\(answer.message)")
  }

  /// A gift wrap to the account from a fresh one-time key, backdated as NIP-59 wraps are.
  static func wrap(_ world: PushWorld) -> Event {
    Demo.event(
      kind: 1059, by: .generate(), createdAt: world.clock.seconds - 86_400,
      tags: [["p", Demo.account.publicKeyHex]], content: "sealed")
  }

  @Test func theBoundCoalescesIntoAQueuedWakeAndDefersPastSixAMinute() {
    typealias Bound = DirectMessageWakeBound
    #expect(Bound.decide(queued: true, recent: [], nowMilliseconds: 1_000) == .coalesce)
    #expect(
      Bound.decide(queued: false, recent: [], nowMilliseconds: 1_000) == .enqueue(dueAtMilliseconds: 1_000))
    let six: [Int64] = [61_000, 10_000, 20_000, 30_000, 40_000, 50_000]
    // Six in the last minute: the next is due a minute after the oldest of them.
    #expect(
      Bound.decide(queued: false, recent: six, nowMilliseconds: 65_000) == .enqueue(dueAtMilliseconds: 70_000)
    )
    // One of them left the window: due now.
    #expect(
      Bound.decide(queued: false, recent: six, nowMilliseconds: 70_000) == .enqueue(dueAtMilliseconds: 70_000)
    )
  }

  @Test(arguments: StoreBackend.available)
  func twelveStrangerWrapsLeaveTheChannelMentionDelivered(backend: StoreBackend) async throws {
    try await withStarted(
      try await PushWorld(backend: backend, quota: GatewayFixtureConfiguration.defaultQuota)
    ) {
      world in
      try Self.lease(in: world)
      // Twelve wraps in 1.2 s, the worker running after each (the worst case for coalescing).
      for _ in 0..<12 {
        try world.publish(Self.wrap(world))
        try await world.worker.runOnce()
        world.clock.advance(by: .milliseconds(100))
      }
      let mention = world.mention()
      try world.publish(mention)
      try await world.worker.runOnce()
      let wakes = try world.outbox.wakes()
      let mentionWake = try #require(wakes.first { $0.candidate.eventID == mention.id })
      #expect(mentionWake.state == .delivered, "\(mentionWake)")
      #expect(world.gateway.deliveries().contains { $0.requestID == mentionWake.requestID })
      // The wraps are bounded, not lost: six wakes in the first minute, and one more, due a
      // minute after the first, covering the five that came while it was queued.
      let wrapWakes = wakes.filter { $0.candidate.eventID != mention.id }
      #expect(wrapWakes.count == 7)
      #expect(wrapWakes.filter { $0.state == .delivered }.count == 6)
      world.clock.advance(by: .seconds(60))
      #expect(try await world.worker.runOnce().map(\.answer) == [.accepted])
      #expect(try world.outbox.wakes().allSatisfy { $0.state == .delivered })
    }
  }
}
