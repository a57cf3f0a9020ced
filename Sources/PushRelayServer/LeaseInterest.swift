import NostrEvent
import PushLease
import PushRelay

/// What the live leases could match, indexed for one look-up per event: per kind, the `#p`, `#h`,
/// `authors` and `#e` values their filters name, and the kinds a filter asks for outright.
///
/// A superset test (it ignores `ignore` filters and the roster): the store keeps an event only
/// when some lease might want it, and the matcher decides. So events no lease could match are
/// never stored, whatever arrives from a feed.
struct LeaseInterest: Sendable {
  private var pTags: [Int: Set<String>] = [:]
  private var hTags: [Int: Set<String>] = [:]
  private var authors: [Int: Set<String>] = [:]
  private var eTags: [Int: Set<String>] = [:]
  private var bareKinds: Set<Int> = []

  /// Nothing is of interest.
  init() {}

  /// The interest of `leases`.
  init(leases: [StoredLease]) {
    for lease in leases {
      for subscription in lease.subscriptions {
        let filter = subscription.filter
        for kind in filter.kinds {
          if let values = filter.pTags {
            pTags[kind, default: []].formUnion(values)
          } else if let values = filter.hTags {
            hTags[kind, default: []].formUnion(values)
          } else if let values = filter.authors {
            authors[kind, default: []].formUnion(values)
          } else if let values = filter.eTags {
            eTags[kind, default: []].formUnion(values)
          } else {
            bareKinds.insert(kind)
          }
        }
      }
    }
  }

  /// Whether some live lease might match `event`.
  func mayMatch(_ event: Event) -> Bool {
    let kind = event.kind
    if bareKinds.contains(kind) { return true }
    if authors[kind]?.contains(event.pubkey) == true { return true }
    for tag in event.tags where tag.count >= 2 {
      switch tag[0] {
      case "p": if pTags[kind]?.contains(tag[1]) == true { return true }
      case "h": if hTags[kind]?.contains(tag[1]) == true { return true }
      case "e": if eTags[kind]?.contains(tag[1]) == true { return true }
      default: continue
      }
    }
    return false
  }
}
