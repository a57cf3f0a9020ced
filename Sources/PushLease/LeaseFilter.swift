import NostrJSON
import PushDescriptor

/// One filter of a lease subscription or ignore list: kinds and the exact-match members a relay
/// may match a push against.
///
/// Only `kinds`, `authors`, `#p`, `#h` and `#e` exist in a lease; nil means the member is absent.
/// It is written with its members in that order, absent ones omitted
/// (`{"kinds":[9],"#h":["…"]}`).
///
/// Create one with ``init(kinds:authors:pTags:hTags:eTags:descriptor:)``, which checks what the
/// lease grammar checks; every value held is one a relay's validator would read.
public struct LeaseFilter: Sendable, Hashable {
  /// The member names in the order they are written.
  package static let memberNames = ["kinds", "authors", "#p", "#h", "#e"]

  /// The event kinds (JSON integers ≥ 0), never empty.
  public private(set) var kinds: [Int]
  /// Exact author pubkeys (64 lowercase hex), or nil when the member is absent.
  public private(set) var authors: [String]?
  /// Exact `p` tag values (in a lease, the lease author's own pubkey), or nil.
  public private(set) var pTags: [String]?
  /// Exact `h` tag values (channel ids), or nil.
  public private(set) var hTags: [String]?
  /// Exact `e` tag values (64 lowercase hex event ids), or nil.
  public private(set) var eTags: [String]?

  /// Creates a filter without checking it (the validator and the planner, which check first).
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

  /// Creates a filter, checked as the lease grammar checks it.
  ///
  /// Without a descriptor: `kinds` holds 1…``LeaseSubscription/maxListedValues`` kinds in
  /// 0…65535; each present member holds 1…``LeaseSubscription/maxListedValues`` values;
  /// `authors`, `#p` and `#e` values are 64 hex (lower-cased); `#h` values are non-empty. With the
  /// relay's `descriptor`, the validator's own filter step runs as well: the counts are the
  /// descriptor's `limitation`, every kind is in `push_kinds`, and `#h` values follow its
  /// `h_grammar` (lowercase UUID v4). Whether a subscription's filter is narrowed, and whether its
  /// `#p` is the lease author, are judged by the subscription and the builder.
  ///
  /// - Throws: the validator's rejection (`invalid: kind must be an integer`, `invalid: invalid h
  ///   tag`, …) for the first failed check.
  public init(
    kinds: [Int], authors: [String]? = nil, pTags: [String]? = nil, hTags: [String]? = nil,
    eTags: [String]? = nil, descriptor: PushDescriptor?
  ) throws(LeaseRejection) {
    let object = LeaseFilter(kinds: kinds, authors: authors, pTags: pTags, hTags: hTags, eTags: eTags)
      .jsonObject
    self = try LeaseFilter(jsonObject: object, descriptor: descriptor)
  }

  /// Reads a filter as the lease plaintext writes it, checked as
  /// ``init(kinds:authors:pTags:hTags:eTags:descriptor:)`` checks (the member types too).
  public init(jsonValue: JSONValue, descriptor: PushDescriptor? = nil) throws(LeaseRejection) {
    guard case .object(let object) = jsonValue else {
      throw LeaseRejection(.schema, "invalid lease schema: filter must be an object")
    }
    self = try LeaseFilter(jsonObject: object, descriptor: descriptor)
  }

  /// The one reading of a filter object: the validator's filter step with a descriptor, the
  /// listed (descriptor-free) check without.
  init(jsonObject object: JSONObject, descriptor: PushDescriptor?) throws(LeaseRejection) {
    if let descriptor {
      self = try LeasePlaintextCheck.filter(
        object, pushClass: nil, narrowed: false, author: nil, descriptor: descriptor)
    } else {
      self = try LeaseSubscription.listedFilter(object)
    }
  }

  /// Whether the filter names who or where (`authors`, `#p` or `#h`), as a subscription's must.
  var isNarrowed: Bool { authors != nil || pTags != nil || hTags != nil }

  /// The filter as JSON, members in `kinds`, `authors`, `#p`, `#h`, `#e` order, absent ones
  /// omitted: what the lease plaintext holds, written by `JSONWriter`.
  public var jsonValue: JSONValue { .object(jsonObject) }

  private var jsonObject: JSONObject {
    var members = [JSONMember(key: "kinds", value: .array(kinds.map { .integer(Int64($0)) }))]
    for (key, values) in [("authors", authors), ("#p", pTags), ("#h", hTags), ("#e", eTags)] {
      if let values { members.append(JSONMember(key: key, value: .array(values.map(JSONValue.string)))) }
    }
    return JSONObject(members)
  }
}
