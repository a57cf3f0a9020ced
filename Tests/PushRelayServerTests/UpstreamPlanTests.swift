import Foundation
import NostrEvent
import NostrJSON
import PushLease
import PushRelay
import PushRelayServer
import Testing

/// REQs derived from live leases stay within an upstream's NIP-11 limits.
@Suite struct UpstreamPlanTests {
  /// A stored lease row with `subscriptions` (the plan reads nothing else).
  static func lease(_ index: Int, _ subscriptions: [LeaseSubscription]) -> StoredLease {
    let pubkey = String(format: "%064x", index)
    return StoredLease(
      address: LeaseAddress(
        origin: "wss://push.example.org",
        lease: OpenedLease.Address(pubkey: pubkey, d: "d\(index)")),
      eventID: String(format: "%064x", index + 1), createdAt: 1, expiresAt: 2_000_000_000, keyID: "k",
      generation: 1, active: true, endpointEnabled: true, appProfile: "a", transport: "apns", endpoint: "e",
      endpointHash: String(format: "%064x", index + 2), subscriptions: subscriptions, eventJSON: [])
  }

  static func leases(count: Int, pubkeys: Int, channels: Int) throws -> [StoredLease] {
    try (0..<count).map { index in
      let mention = try LeaseSubscription(
        filter: LeaseFilter(kinds: [1], pTags: [String(format: "%064x", index % pubkeys)], descriptor: nil),
        class: "default")
      let channel = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", index % channels))!
        .uuidString.lowercased()
      let message = try LeaseSubscription(
        filter: LeaseFilter(kinds: [9], hTags: [channel], descriptor: nil), class: "default")
      return lease(index, [mention, message])
    }
  }

  @Test func tenThousandLeasesStayWithinTheLimits() throws {
    let limits = UpstreamLimits(maxSubscriptions: 20, maxFilters: 10, maxValues: 256)
    let plan = UpstreamPlan(
      leases: try Self.leases(count: 10_000, pubkeys: 2_000, channels: 500), limits: limits)
    #expect(plan.subscriptions.count <= 20)
    #expect(plan.overflow == 0)
    for subscription in plan.subscriptions {
      #expect(subscription.filters.count <= 10)
      for filter in subscription.filters {
        #expect((filter.authors?.count ?? 0) <= 256)
        #expect(filter.tags.values.allSatisfy { $0.count <= 256 })
      }
    }
    let mentioned = Set(plan.subscriptions.flatMap { $0.filters.flatMap { $0.tags["p"] ?? [] } })
    let channels = Set(plan.subscriptions.flatMap { $0.filters.flatMap { $0.tags["h"] ?? [] } })
    #expect(mentioned.count == 2_000)
    #expect(channels.count == 500)
  }

  @Test func aPlanThatDidNotChangeKeepsItsSubscriptionIDs() throws {
    let leases = try Self.leases(count: 300, pubkeys: 300, channels: 10)
    let limits = UpstreamLimits()
    #expect(
      UpstreamPlan(leases: leases, limits: limits) == UpstreamPlan(leases: leases.reversed(), limits: limits))
  }

  @Test func limitsAreReadFromNIP11WithDefaultsWhenAbsent() throws {
    let object = try #require(
      JSONReader().read(#"{"max_subscriptions":5,"max_filters":"x"}"#).objectValue)
    let limits = UpstreamLimits(limitation: object)
    #expect(limits == UpstreamLimits(maxSubscriptions: 5, maxFilters: 10, maxValues: 256))
    #expect(UpstreamLimits(limitation: nil) == UpstreamLimits())
  }

  @Test func subscriptionsPastTheUpstreamsLimitAreCounted() throws {
    let plan = UpstreamPlan(
      leases: try Self.leases(count: 1_000, pubkeys: 1_000, channels: 1),
      limits: UpstreamLimits(maxSubscriptions: 2, maxFilters: 1, maxValues: 100))
    #expect(plan.subscriptions.count == 2)
    #expect(plan.overflow > 0)
  }
}
