import NostrEvent
import NostrJSON
import PushLease
import PushRelay

/// The REQs the service keeps open on one upstream, derived from the live leases: the union of
/// their filters grouped by kinds × one dimension (`#p`, `#h`, `authors`, `#e`), values chunked
/// to the upstream's ``UpstreamLimits``, filters chunked into subscriptions.
///
/// Each subscription's id is a digest of its filters, so a plan recomputed after a lease change
/// differs from the old one only in the subscriptions whose filters changed: the service closes
/// and opens only those. A lease filter that constrains several dimensions is widened to one of
/// them (in the order `#p`, `#h`, `authors`, `#e`); the matcher applies the whole filter to what
/// arrives. Channels named by `#h` also ask for their NIP-29 member lists (kind 39002, `#d`),
/// which the roster reads. Subscriptions past `maxSubscriptions` are dropped and counted in
/// ``overflow``.
///
/// While the upstream's `maxSubscriptions` allows it, a subscription holds the filters of one
/// group only (its kinds × its dimension), so that a lease change touching one group — the
/// mentions of accounts that revoked — closes and reopens only that group's REQs and leaves the
/// others (their channels) open; past the limit, every group's filters are packed densely. A REQ
/// cannot be edited in NIP-01: a group's REQ that named a revoked value is closed and its kept
/// values asked again under a new id.
public struct UpstreamPlan: Sendable, Hashable {
  /// One REQ: its id and its filters (without `since`, which is added at send time).
  public struct Subscription: Sendable, Hashable {
    /// The subscription id (16 hex of a digest of the filters).
    public var id: String
    /// The filters.
    public var filters: [Filter]
  }

  /// The kind of a NIP-29 group member list.
  public static let membersKind = EventKind.groupMembers

  /// The subscriptions, in a stable order.
  public var subscriptions: [Subscription]
  /// Filters that did not fit the upstream's subscription limit.
  public var overflow: Int

  /// The plan for `leases` within `limits`.
  public init(leases: [StoredLease], limits: UpstreamLimits) {
    var groups: [GroupKey: Set<String>] = [:]
    var bare = Set<[Int]>()
    var channels = Set<String>()
    for lease in leases {
      for subscription in lease.subscriptions {
        let filter = subscription.filter
        let kinds = Array(Set(filter.kinds)).sorted()
        if let values = filter.pTags {
          groups[GroupKey(kinds: kinds, dimension: "#p"), default: []].formUnion(values)
        } else if let values = filter.hTags {
          groups[GroupKey(kinds: kinds, dimension: "#h"), default: []].formUnion(values)
          channels.formUnion(values)
        } else if let values = filter.authors {
          groups[GroupKey(kinds: kinds, dimension: "authors"), default: []].formUnion(values)
        } else if let values = filter.eTags {
          groups[GroupKey(kinds: kinds, dimension: "#e"), default: []].formUnion(values)
        } else {
          bare.insert(kinds)
        }
      }
    }
    if !channels.isEmpty {
      groups[GroupKey(kinds: [Self.membersKind], dimension: "#d"), default: []].formUnion(channels)
    }
    var grouped: [[Filter]] = [bare.sorted { $0.lexicographicallyPrecedes($1) }.map { Filter(kinds: $0) }]
    for key in groups.keys.sorted() {
      let values = groups[key]!.sorted()
      var filters: [Filter] = []
      var start = 0
      while start < values.count {
        let chunk = Array(values[start..<min(start + limits.maxValues, values.count)])
        start += limits.maxValues
        switch key.dimension {
        case "authors": filters.append(Filter(authors: chunk, kinds: key.kinds))
        default: filters.append(Filter(kinds: key.kinds, tags: [String(key.dimension.dropFirst()): chunk]))
        }
      }
      grouped.append(filters)
    }
    grouped.removeAll { $0.isEmpty }
    let separate = grouped.reduce(0) { $0 + ($1.count + limits.maxFilters - 1) / limits.maxFilters }
    let runs = separate <= limits.maxSubscriptions ? grouped : [grouped.flatMap { $0 }]
    var subscriptions: [Subscription] = []
    for filters in runs {
      var start = 0
      while start < filters.count {
        let chunk = Array(filters[start..<min(start + limits.maxFilters, filters.count)])
        start += limits.maxFilters
        subscriptions.append(Subscription(id: Self.id(of: chunk), filters: chunk))
      }
    }
    overflow = max(0, subscriptions.count - limits.maxSubscriptions)
    self.subscriptions = Array(subscriptions.prefix(limits.maxSubscriptions))
  }

  /// The id of a subscription over `filters`: the first 16 hex of the SHA-256 of their JSON.
  static func id(of filters: [Filter]) -> String {
    let bytes = JSONWriter.bytes(.array(filters.map(\.jsonValue)))
    return String(Hex.encode(NostrSHA256.hash(bytes)).prefix(16))
  }

  private struct GroupKey: Hashable, Comparable {
    var kinds: [Int]
    var dimension: String

    static func < (lhs: GroupKey, rhs: GroupKey) -> Bool {
      lhs.dimension != rhs.dimension
        ? lhs.dimension < rhs.dimension : lhs.kinds.lexicographicallyPrecedes(rhs.kinds)
    }
  }
}
