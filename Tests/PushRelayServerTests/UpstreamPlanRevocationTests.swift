import Foundation
import NostrEvent
import PushRelay
import PushRelayServer
import Testing

/// A revocation changes only the REQs of what was revoked: the service closes the subscriptions
/// a new plan no longer has and opens the ones it did not have, by id (``UpstreamPlan``), so
/// these plans say exactly what goes over the wire.
@Suite struct UpstreamPlanRevocationTests {
  static let limits = UpstreamLimits(maxSubscriptions: 20, maxFilters: 10, maxValues: 256)

  static func pubkey(_ index: Int) -> String { String(format: "%064x", index) }

  static func values(_ plan: UpstreamPlan, _ tag: String) -> Set<String> {
    Set(plan.subscriptions.flatMap { $0.filters.flatMap { $0.tags[tag] ?? [] } })
  }

  /// 10 000 leases over 2 000 mentioned pubkeys and 500 channels (each lease a mention and a
  /// channel subscription); the accounts 1 000…1 999 revoke theirs (5 000 leases), while their
  /// channels stay wanted by the others.
  @Test func revokingHalfTheLeasesClosesOnlyTheirREQs() throws {
    let all = try UpstreamPlanTests.leases(count: 10_000, pubkeys: 2_000, channels: 500)
    let kept = all.enumerated().filter { $0.offset % 2_000 < 1_000 }.map(\.element)
    #expect(kept.count == 5_000)
    let before = UpstreamPlan(leases: all, limits: Self.limits)
    let after = UpstreamPlan(leases: kept, limits: Self.limits)
    #expect(after.subscriptions.count <= 20 && after.overflow == 0)
    let revoked = Set((1_000..<2_000).map(Self.pubkey))
    let beforeIDs = Set(before.subscriptions.map(\.id))
    let afterIDs = Set(after.subscriptions.map(\.id))
    let closed = before.subscriptions.filter { !afterIDs.contains($0.id) }
    let opened = after.subscriptions.filter { !beforeIDs.contains($0.id) }
    #expect(!closed.isEmpty)
    // Every REQ closed named a revoked account.
    for subscription in closed {
      #expect(subscription.filters.contains { !Set($0.tags["p"] ?? []).isDisjoint(with: revoked) })
    }
    // The channel REQs (kind 9 `#h`, the member lists' `#d`) stay open, untouched.
    let channelREQs = before.subscriptions.filter { $0.filters.allSatisfy { $0.tags["p"] == nil } }
    #expect(!channelREQs.isEmpty)
    for subscription in channelREQs { #expect(afterIDs.contains(subscription.id)) }
    // What opens asks only for kept accounts' mentions; every kept account is still asked, no
    // revoked one, and every channel still.
    for subscription in opened {
      #expect(subscription.filters.allSatisfy { Set($0.tags["p"] ?? ["none"]).isDisjoint(with: revoked) })
      #expect(subscription.filters.allSatisfy { $0.tags["p"] != nil })
    }
    #expect(Self.values(after, "p") == Set((0..<1_000).map(Self.pubkey)))
    #expect(Self.values(after, "h").count == 500)
  }

  /// Revoking leases whose pubkeys and channels other leases still want closes nothing.
  @Test func revokingLeasesWhoseValuesOthersStillWantClosesNothing() throws {
    let all = try UpstreamPlanTests.leases(count: 10_000, pubkeys: 2_000, channels: 500)
    let before = UpstreamPlan(leases: all, limits: Self.limits)
    let after = UpstreamPlan(leases: Array(all.prefix(5_000)), limits: Self.limits)
    #expect(after == before)
  }
}
