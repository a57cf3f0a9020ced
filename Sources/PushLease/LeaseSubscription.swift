import NostrJSON

/// One subscription of an active lease: what wakes the device, with which push class, and what
/// stays quiet.
///
/// It is written as `{"filter":F,"class":C}`, then `"ignore"` only when non-empty, then
/// `"suppress":{"p_tags_max":n}` only when set.
///
/// Its members are held in one immutable box: the relay's matcher meets a lease's subscriptions
/// for every event that could wake it, and copying a box is one retain where copying the members
/// is one per array and string they hold.
public struct LeaseSubscription: Sendable, Hashable {
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
  package var filter: LeaseFilter { members.filter }
  /// The push class (`default`, `time_sensitive`, … as `class_support` lists for the transport).
  package var pushClass: String { members.pushClass }
  /// Events matching any of these never wake, even when `filter` matches.
  package var ignore: [LeaseFilter] { members.ignore }
  /// Events with more `p` tags than this never wake (the hellthread gate); nil when unset.
  package var pTagsMax: Int? { members.pTagsMax }

  /// Creates a subscription.
  package init(filter: LeaseFilter, pushClass: String, ignore: [LeaseFilter] = [], pTagsMax: Int? = nil) {
    members = Members(filter: filter, pushClass: pushClass, ignore: ignore, pTagsMax: pTagsMax)
  }

  /// The subscription as the lease plaintext writes it (optional members only when set).
  package var jsonValue: JSONValue {
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
