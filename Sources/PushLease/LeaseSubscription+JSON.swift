import NostrEvent
import NostrJSON

extension LeaseSubscription {
  /// The most subscriptions ``list(jsonValue:)`` reads (the planner's own ceiling).
  public static let maxListed = SubscriptionPlanner.maxSubscriptions
  /// The most ignore filters one subscription checked without a descriptor may carry.
  public static let maxListedIgnore = 64
  /// The most values one member (`kinds`, `authors`, `#p`, `#h`, `#e`) of a filter checked
  /// without a descriptor may hold.
  public static let maxListedValues = 1024

  /// Reads a JSON array of subscriptions as the lease plaintext writes them (`filter`, `class`,
  /// `ignore`, `suppress`), each read by ``init(jsonValue:)``, at most ``maxListed``: what an
  /// extension is configured with, already accepted by its relay.
  ///
  /// - Throws: the validator's schema rejection for a bad shape (`invalid: invalid lease schema:
  ///   subscriptions[1].class must be a string`), else the first failed check of a subscription
  ///   or filter.
  public static func list(jsonValue: JSONValue) throws(LeaseRejection) -> [LeaseSubscription] {
    guard case .array(let elements) = jsonValue else {
      throw LeaseRejection(.schema, "invalid lease schema: subscriptions must be an array")
    }
    guard elements.count <= maxListed else {
      throw LeaseRejection(.active, "subscription quota exceeded")
    }
    var subscriptions: [LeaseSubscription] = []
    for (index, element) in elements.enumerated() {
      subscriptions.append(try LeaseSubscription(jsonValue: element, path: "subscriptions[\(index)]"))
    }
    return subscriptions
  }

  /// Reads one subscription as the lease plaintext writes it, checking its shape (the
  /// validator's schema rules), each filter as ``LeaseFilter/init(jsonValue:descriptor:)`` does
  /// without a descriptor, and the subscription as ``init(filter:class:ignore:pTagsMax:)`` does.
  public init(jsonValue: JSONValue) throws(LeaseRejection) {
    try self.init(jsonValue: jsonValue, path: "subscription")
  }

  private init(jsonValue: JSONValue, path: String) throws(LeaseRejection) {
    let shape = try LeasePlaintextCheck.subscriptionShape(jsonValue, path: path)
    guard shape.ignore.count <= Self.maxListedIgnore else {
      throw LeaseRejection(.subscription, "ignore quota exceeded")
    }
    var ignore: [LeaseFilter] = []
    for object in shape.ignore { ignore.append(try Self.listedFilter(object)) }
    try self.init(
      filter: try Self.listedFilter(shape.filter), class: shape.pushClass, ignore: ignore,
      pTagsMax: shape.pTagsMax.map { Int(clamping: $0) })
  }

  /// One filter checked without a descriptor: kinds are 1…``maxListedValues`` integers in
  /// 0…65535, each exact member an array of 1…``maxListedValues`` strings, `authors`, `#p` and
  /// `#e` values 64 hex (lower-cased), `#h` values non-empty.
  static func listedFilter(_ object: JSONObject) throws(LeaseRejection) -> LeaseFilter {
    for key in object.keys where !LeaseFilter.memberNames.contains(key) {
      throw LeaseRejection(.filter, "filter member not permitted: \(key)")
    }
    guard let kindsValue = object["kinds"] else { throw LeaseRejection(.filter, "missing kinds") }
    guard case .array(let kindItems) = kindsValue else {
      throw LeaseRejection(.filter, "kinds must be an array")
    }
    guard (1...maxListedValues).contains(kindItems.count) else {
      throw LeaseRejection(.filter, "invalid kinds count")
    }
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
      guard case .array(let items) = value else { throw LeaseRejection(.filter, "\(key) must be an array") }
      guard (1...maxListedValues).contains(items.count) else {
        throw LeaseRejection(.filter, "invalid \(key) count")
      }
      var strings: [String] = []
      for item in items {
        guard let text = item.stringValue else {
          throw LeaseRejection(.filter, "\(key) values must be strings")
        }
        if key == "#h" {
          guard !text.isEmpty else { throw LeaseRejection(.filter, "invalid string length") }
          strings.append(text)
        } else {
          guard let id = NostrID(lenient: text) else {
            throw LeaseRejection(.filter, "non-exact match value for \(Self.valueName(key))")
          }
          strings.append(id.hex)
        }
      }
      exact[key] = strings
    }
    return LeaseFilter(
      kinds: kinds, authors: exact["authors"], pTags: exact["#p"], hTags: exact["#h"], eTags: exact["#e"])
  }

  /// The validator's name for a member's values in `non-exact match value for …`.
  private static func valueName(_ key: String) -> String {
    switch key {
    case "authors": "author"
    case "#p": "p tag"
    default: "e tag"
    }
  }
}
