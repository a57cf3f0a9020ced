import NostrJSON

/// One filter of a lease subscription or ignore list: kinds and the exact-match members a relay
/// may match a push against.
///
/// Only `kinds`, `authors`, `#p`, `#h` and `#e` exist in a lease; nil means the member is absent.
/// It is written with its members in that order, absent ones omitted.
public struct LeaseFilter: Sendable, Hashable {
  /// The member names in the order they are written.
  package static let memberNames = ["kinds", "authors", "#p", "#h", "#e"]

  /// The event kinds (JSON integers ≥ 0).
  package var kinds: [Int]
  /// Exact author pubkeys (64 lowercase hex), or nil.
  package var authors: [String]?
  /// Exact `p` tag values (the lease author's own pubkey), or nil.
  package var pTags: [String]?
  /// Exact `h` tag values (channel ids), or nil.
  package var hTags: [String]?
  /// Exact `e` tag values (64 lowercase hex event ids), or nil.
  package var eTags: [String]?

  /// Creates a filter; absent members stay nil and are not written.
  package init(
    kinds: [Int], authors: [String]? = nil, pTags: [String]? = nil, hTags: [String]? = nil,
    eTags: [String]? = nil
  ) {
    self.kinds = kinds
    self.authors = authors
    self.pTags = pTags
    self.hTags = hTags
    self.eTags = eTags
  }

  /// The filter as JSON, members in `memberNames` order, absent ones omitted.
  package var jsonValue: JSONValue {
    var members = [JSONMember(key: "kinds", value: .array(kinds.map { .integer(Int64($0)) }))]
    for (key, values) in [("authors", authors), ("#p", pTags), ("#h", hTags), ("#e", eTags)] {
      if let values { members.append(JSONMember(key: key, value: .array(values.map(JSONValue.string)))) }
    }
    return .object(JSONObject(members))
  }
}
