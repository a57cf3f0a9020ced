import NostrEvent
import PushLease
import Testing

@testable import PushRelay

/// The live index's compaction: a lease comes out equal to what went in, with equal values in one
/// allocation, and the shared tables stop at their bounds.
@Suite struct LeaseCompactorTests {
  static let me = Demo.account.publicKeyHex

  static func storage<T>(_ array: [T]) -> UnsafeRawPointer? {
    array.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  static func planned(d: String, channel: String = Demo.channel, kinds: [Int] = [9, 40002, 45001, 45003])
    -> StoredLease
  {
    let ignore = LeaseFilter(kinds: kinds, authors: [me])
    return PushMatcherTests.lease(
      [
        LeaseSubscription(
          filter: LeaseFilter(kinds: kinds, pTags: [me]), pushClass: "default", ignore: [ignore], pTagsMax: 20
        ),
        LeaseSubscription(
          filter: LeaseFilter(kinds: [9], hTags: [channel], eTags: [String(repeating: "e", count: 64)]),
          pushClass: "time_sensitive", ignore: [ignore]),
      ], d: d)
  }

  @Test func keepsEveryValue() {
    var compactor = LeaseCompactor()
    for lease in [Self.planned(d: "a"), Self.planned(d: "b", channel: "other"), PushMatcherTests.lease([])] {
      #expect(compactor.compact(lease) == lease)
    }
  }

  @Test func sharesEqualValuesWithinALeaseAndAcrossLeases() throws {
    var compactor = LeaseCompactor()
    let first = compactor.compact(Self.planned(d: "a"))
    let second = compactor.compact(Self.planned(d: "b"))
    let mention = first.subscriptions[0]
    let channel = first.subscriptions[1]
    // The owner's pubkey in `#p` and in the self-ignore's `authors`: one array.
    #expect(
      Self.storage(try #require(mention.filter.pTags))
        == Self.storage(try #require(mention.ignore[0].authors)))
    // The two subscriptions' equal ignore lists: one array.
    #expect(Self.storage(mention.ignore) == Self.storage(channel.ignore))
    // Across leases: the kinds and the channel's `#h`.
    #expect(Self.storage(mention.filter.kinds) == Self.storage(second.subscriptions[0].filter.kinds))
    #expect(
      Self.storage(try #require(channel.filter.hTags))
        == Self.storage(try #require(second.subscriptions[1].filter.hTags)))
  }

  @Test func stopsSharingKindsPastItsBound() {
    var compactor = LeaseCompactor()
    for position in 0..<LeaseCompactor.maxSharedKinds {
      _ = compactor.compact(Self.planned(d: "\(position)", kinds: [9, 10_000 + position]))
    }
    let late = [9, 99_999]
    // Two leases with equal kinds in arrays of their own (`map` copies): past the bound, each keeps its own.
    let one = compactor.compact(Self.planned(d: "x", kinds: late.map { $0 }))
    let two = compactor.compact(Self.planned(d: "y", kinds: late.map { $0 }))
    #expect(one.subscriptions[0].filter.kinds == late)
    #expect(
      Self.storage(one.subscriptions[0].filter.kinds) != Self.storage(two.subscriptions[0].filter.kinds))
    // Kinds shared before the bound are still shared.
    let early = compactor.compact(Self.planned(d: "z", kinds: [9, 10_000].map { $0 }))
    let again = compactor.compact(Self.planned(d: "w", kinds: [9, 10_000].map { $0 }))
    #expect(
      Self.storage(early.subscriptions[0].filter.kinds) == Self.storage(again.subscriptions[0].filter.kinds))
  }
}
