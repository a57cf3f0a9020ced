import NostrEvent

/// The live leases of one origin indexed by the exact values their filters narrow on, so an
/// event meets only the leases that could match it.
///
/// Every lease filter is narrowed by `#p`, `#h` or `authors` (the validator refuses others), and
/// all of a filter's conditions must hold, so a filter can match only an event carrying one of the
/// values of its narrowing member: the index keys each subscription by the values of its `#p`,
/// else `#h`, else `authors`, and an event looks up its `p` and `h` tag values and its pubkey. A
/// subscription narrowed by none of them (a store that skipped the validator) is met by every
/// event. Build it once per change of the lease set; `SQLiteLeaseStore.liveIndex(origin:)` caches
/// one.
public struct LeaseIndex: Sendable {
  /// The leases, in the order given.
  public let leases: [StoredLease]
  private let byKey: [String: [Int]]
  private let everywhere: [Int]

  /// Indexes `leases`.
  public init(_ leases: [StoredLease]) {
    var byKey: [String: [Int]] = [:]
    var everywhere: [Int] = []
    for (position, lease) in leases.enumerated() {
      var keys: Set<String> = []
      var unnarrowed = false
      for subscription in lease.compiled {
        let filter = subscription.filter
        if let values = filter.tags["p"] {
          for value in values { keys.insert(Self.key("p", value)) }
        } else if let values = filter.tags["h"] {
          for value in values { keys.insert(Self.key("h", value)) }
        } else if let authors = filter.authors {
          for value in authors { keys.insert(Self.key("a", value)) }
        } else {
          unnarrowed = true
        }
      }
      if unnarrowed {
        everywhere.append(position)
      } else {
        for key in keys { byKey[key, default: []].append(position) }
      }
    }
    self.leases = leases
    self.byKey = byKey
    self.everywhere = everywhere
  }

  /// The leases `event` could match, in index order, each once.
  public func leases(for event: Event) -> [StoredLease] {
    var positions = Set(everywhere)
    if let hits = byKey[Self.key("a", event.pubkey)] { positions.formUnion(hits) }
    for tag in event.tags where tag.count >= 2 && (tag[0] == "p" || tag[0] == "h") {
      if let hits = byKey[Self.key(tag[0], tag[1])] { positions.formUnion(hits) }
    }
    return positions.sorted().map { leases[$0] }
  }

  private static func key(_ member: String, _ value: String) -> String {
    member + "\u{0}" + value
  }
}
