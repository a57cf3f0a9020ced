import NostrJSON

/// One subscription of an active lease: what wakes the device, with which push class, and what
/// stays quiet.
///
/// It is written as `{"filter":F,"class":C}`, then `"ignore"` only when non-empty, then
/// `"suppress":{"p_tags_max":n}` only when set: ``jsonValue``, written by `JSONWriter`, is byte
/// for byte what the lease plaintext holds, and ``init(jsonValue:)`` reads it back.
///
/// Create one with ``init(filter:class:ignore:pTagsMax:)`` (checked), read one with
/// ``init(jsonValue:)`` or ``list(jsonValue:)``, or take the planner's. An app hands its lease's
/// subscriptions to its extension in an ``EnrolledAccount``, so the extension selects by exactly
/// the rule the relay matched by (``matches(_:owner:roster:)``).
///
/// `Codable` (decision): it encodes the same members with the same names and values as the
/// plaintext (`filter`, `class`, `ignore` only when non-empty, `suppress` only when set; filter
/// members `kinds`, `authors`, `#p`, `#h`, `#e`), and decoding runs the same checks as the
/// initialisers. Foundation's encoders choose their own key order and escaping, so the
/// byte-identical form is ``jsonValue`` through NostrJSON's `JSONWriter` (what
/// ``EnrolledAccount/jsonBytes`` writes); either form reads back to an equal value.
///
/// Its members are held in one immutable box: the relay's matcher meets a lease's subscriptions
/// for every event that could wake it, and copying a box is one retain where copying the members
/// is one per array and string they hold.
public struct LeaseSubscription: Sendable, Hashable, Codable {
  private final class Members: Sendable, Hashable {
    let filter: LeaseFilter
    let pushClass: String
    let ignore: [LeaseFilter]
    let pTagsMax: Int?

    init(filter: LeaseFilter, pushClass: String, ignore: [LeaseFilter], pTagsMax: Int?) {
      self.filter = filter
      self.pushClass = pushClass
      self.ignore = ignore
      self.pTagsMax = pTagsMax
    }

    static func == (left: Members, right: Members) -> Bool {
      left === right
        || (left.filter == right.filter && left.pushClass == right.pushClass && left.ignore == right.ignore
          && left.pTagsMax == right.pTagsMax)
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(filter)
      hasher.combine(pushClass)
      hasher.combine(ignore)
      hasher.combine(pTagsMax)
    }
  }

  private let members: Members

  /// The events that wake the device.
  public var filter: LeaseFilter { members.filter }
  /// The push class as the plaintext's `class` writes it (`default`, `time_sensitive`, … as
  /// `class_support` lists for the transport; a transport other than APNs may name its own).
  public var pushClass: String { members.pushClass }
  /// Events matching any of these never wake, even when `filter` matches.
  public var ignore: [LeaseFilter] { members.ignore }
  /// Events with more `p` tags than this never wake (the hellthread gate); nil when unset.
  public var pTagsMax: Int? { members.pTagsMax }

  /// Creates a subscription, checked as the lease grammar checks one: the filter is narrowed
  /// (`authors`, `#p` or `#h`), the class is a non-empty string, at most ``maxListedIgnore``
  /// ignore filters, and `pTagsMax`, when set, is positive.
  ///
  /// The filters were checked when they were made (with or without the relay's descriptor); the
  /// class against `class_support`, the ignore count against `max_ignore` and `#p` against the
  /// lease author are judged with the descriptor by `LeaseBuilder` before it signs.
  ///
  /// - Throws: the validator's rejection for the first failed check (`invalid: lease filter not
  ///   narrowed`, `invalid: class not supported`, `invalid: ignore quota exceeded`,
  ///   `invalid: p_tags_max must be positive`).
  public init(
    filter: LeaseFilter, class pushClass: String, ignore: [LeaseFilter] = [], pTagsMax: Int? = nil
  ) throws(LeaseRejection) {
    guard filter.isNarrowed else { throw LeaseRejection(.filter, "lease filter not narrowed") }
    guard !pushClass.isEmpty else { throw LeaseRejection(.subscription, "class not supported") }
    guard ignore.count <= Self.maxListedIgnore else {
      throw LeaseRejection(.subscription, "ignore quota exceeded")
    }
    if let pTagsMax, pTagsMax <= 0 { throw LeaseRejection(.subscription, "p_tags_max must be positive") }
    self.init(filter: filter, pushClass: pushClass, ignore: ignore, pTagsMax: pTagsMax)
  }

  /// Creates a subscription without checking it (the validator and the planner, which check
  /// first).
  package init(filter: LeaseFilter, pushClass: String, ignore: [LeaseFilter] = [], pTagsMax: Int? = nil) {
    members = Members(filter: filter, pushClass: pushClass, ignore: ignore, pTagsMax: pTagsMax)
  }

  /// The subscription as the lease plaintext writes it (optional members only when set); written
  /// by `JSONWriter`, these are the plaintext's bytes.
  public var jsonValue: JSONValue {
    var members = [
      JSONMember(key: "filter", value: filter.jsonValue), JSONMember(key: "class", value: .string(pushClass)),
    ]
    if !ignore.isEmpty { members.append(JSONMember(key: "ignore", value: .array(ignore.map(\.jsonValue)))) }
    if let pTagsMax { members.append(JSONMember(key: "suppress", value: Self.suppressValue(pTagsMax))) }
    return .object(JSONObject(members))
  }

  /// The subscription as `nostr-push lease open` prints it: `ignore` always an array, `suppress`
  /// an object or null.
  package var openedJSONValue: JSONValue {
    .object(
      JSONObject([
        "filter": filter.jsonValue, "class": .string(pushClass), "ignore": .array(ignore.map(\.jsonValue)),
        "suppress": pTagsMax.map(Self.suppressValue) ?? .null,
      ]))
  }

  private static func suppressValue(_ pTagsMax: Int) -> JSONValue {
    .object(JSONObject(["p_tags_max": .integer(Int64(pTagsMax))]))
  }
}
