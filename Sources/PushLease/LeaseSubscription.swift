import NostrJSON

/// One subscription of an active lease: what wakes the device, with which push class, and what
/// stays quiet.
///
/// It is written as `{"filter":F,"class":C}`, then `"ignore"` only when non-empty, then
/// `"suppress":{"p_tags_max":n}` only when set.
public struct LeaseSubscription: Sendable, Hashable {
  /// The events that wake the device.
  package var filter: LeaseFilter
  /// The push class (`default`, `time_sensitive`, … as `class_support` lists for the transport).
  package var pushClass: String
  /// Events matching any of these never wake, even when `filter` matches.
  package var ignore: [LeaseFilter]
  /// Events with more `p` tags than this never wake (the hellthread gate); nil when unset.
  package var pTagsMax: Int?

  /// Creates a subscription.
  package init(filter: LeaseFilter, pushClass: String, ignore: [LeaseFilter] = [], pTagsMax: Int? = nil) {
    self.filter = filter
    self.pushClass = pushClass
    self.ignore = ignore
    self.pTagsMax = pTagsMax
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
