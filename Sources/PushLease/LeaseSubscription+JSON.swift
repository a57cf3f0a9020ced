import NostrEvent
import NostrJSON

extension LeaseSubscription {
  /// The most subscriptions ``list(jsonValue:)`` reads (the planner's own ceiling).
  package static let maxListed = SubscriptionPlanner.maxSubscriptions
  /// The most ignore filters one listed subscription may carry.
  package static let maxListedIgnore = 64
  /// The most values one member (`kinds`, `authors`, `#p`, `#h`, `#e`) of a listed filter may hold.
  package static let maxListedValues = 1024

  /// Reads a JSON array of subscriptions as the lease plaintext writes them (`filter`, `class`,
  /// `ignore`, `suppress`), checking their shape and each filter's member types and bounds but no
  /// relay descriptor: what an extension (`nostr-push resolve --subscriptions`) is configured
  /// with, already accepted by its relay.
  ///
  /// Throws the validator's schema rejection for a bad shape, and `filter` rejections for a filter
  /// without `kinds`, an unknown member, a value of the wrong type or a list over its bound.
  package static func list(jsonValue: JSONValue) throws(LeaseRejection) -> [LeaseSubscription] {
    let shapes = try LeasePlaintextCheck.subscriptionShapes(jsonValue)
    guard shapes.count <= maxListed else {
      throw LeaseRejection(.active, "subscription quota exceeded")
    }
    var subscriptions: [LeaseSubscription] = []
    for shape in shapes {
      guard shape.ignore.count <= maxListedIgnore else {
        throw LeaseRejection(.subscription, "ignore quota exceeded")
      }
      var ignore: [LeaseFilter] = []
      for object in shape.ignore { ignore.append(try filter(object)) }
      if let pTagsMax = shape.pTagsMax, pTagsMax == 0 {
        throw LeaseRejection(.subscription, "p_tags_max must be positive")
      }
      subscriptions.append(
        LeaseSubscription(
          filter: try filter(shape.filter), pushClass: shape.pushClass, ignore: ignore,
          pTagsMax: shape.pTagsMax.map { Int(clamping: $0) }))
    }
    return subscriptions
  }

  /// One filter's members, checked for type and bounds (kinds are integers, the exact members
  /// arrays of strings; `authors`, `#p` and `#e` values 64 hex, lower-cased).
  private static func filter(_ object: JSONObject) throws(LeaseRejection) -> LeaseFilter {
    for key in object.keys where !LeaseFilter.memberNames.contains(key) {
      throw LeaseRejection(.filter, "filter member not permitted: \(key)")
    }
    guard case .array(let kindItems)? = object["kinds"] else {
      throw LeaseRejection(.filter, "missing kinds")
    }
    guard kindItems.count <= maxListedValues else { throw LeaseRejection(.filter, "invalid kinds count") }
    var kinds: [Int] = []
    for item in kindItems {
      guard case .integer(let kind) = item, (0...Int64(UInt16.max)).contains(kind) else {
        throw LeaseRejection(.filter, "kind must be an integer")
      }
      kinds.append(Int(kind))
    }
    var exact: [String: [String]] = [:]
    for key in LeasePlaintextCheck.exactMembers {
      guard let value = object[key] else { continue }
      guard case .array(let items) = value, items.count <= maxListedValues else {
        throw LeaseRejection(.filter, "invalid \(key) count")
      }
      var strings: [String] = []
      for item in items {
        guard let text = item.stringValue else {
          throw LeaseRejection(.filter, "\(key) values must be strings")
        }
        if key == "#h" {
          strings.append(text)
        } else {
          guard let id = NostrID(lenient: text) else {
            throw LeaseRejection(.filter, "non-exact match value for \(key)")
          }
          strings.append(id.hex)
        }
      }
      exact[key] = strings
    }
    return LeaseFilter(
      kinds: kinds, authors: exact["authors"], pTags: exact["#p"], hTags: exact["#h"], eTags: exact["#e"])
  }
}
