import NostrEvent
import PushLease

extension LeaseFilter {
  /// The NIP-01 filter a wake's query sends for this lease filter: the same kinds, authors and
  /// `#p`, `#h`, `#e` values (the relay adds nothing else; `since` and `limit` are the resolver's).
  var queryFilter: Filter {
    var tags: [String: [String]] = [:]
    if let pTags { tags["p"] = pTags }
    if let hTags { tags["h"] = hTags }
    if let eTags { tags["e"] = eTags }
    return Filter(authors: authors, kinds: kinds, tags: tags)
  }
}
