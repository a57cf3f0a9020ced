import NostrEvent
import NostrJSON
import PushDescriptor

/// The validator table's plaintext steps — members, schema, values, active, each subscription
/// and each filter — in the spec's order, the first failure thrown.
///
/// One implementation serves both sides: `LeaseValidator` runs it on the plaintext it
/// decrypted, and `LeaseBuilder` on the plaintext it is about to encrypt (author = the signer,
/// tenant origin = `push.origin`), so an app never publishes a lease its relay refuses. Every
/// bound comes from the descriptor's `limitation`.
enum LeasePlaintextCheck {
  /// The members of an active `nip-pl` lease's plaintext, in the order they are written and
  /// checked.
  static let activeMembers = [
    "v", "origin", "app_profile", "transport", "endpoint", "generation", "active", "subscriptions",
  ]
  /// The members of an active `buzz-push-v1` lease's plaintext: `activeMembers` without
  /// `app_profile`.
  static let activeV1Members = activeMembers.filter { $0 != "app_profile" }

  /// The members of an active lease for the relay's generation.
  static func activeMembers(_ pushProtocol: PushProtocol) -> [String] {
    pushProtocol == .nipPL ? activeMembers : activeV1Members
  }
  /// The members of a tombstone's plaintext, in the order they are written and checked.
  static let tombstoneMembers = ["v", "origin", "generation", "active"]
  /// The members a subscription may have.
  static let subscriptionMembers = ["filter", "class", "ignore", "suppress"]
  /// The largest generation: 2^53 − 1, the largest integer every JSON reader keeps exact.
  static let maxGeneration: Int64 = (1 << 53) - 1
  /// The push class that needs the kind listed in `urgent_kinds`.
  static let urgentClass = "urgent"
  /// The class a transport supports when `class_support` has no string array for it.
  static let fallbackClass = "default"
  /// The exact-match members of a filter, in the order their shapes and values are checked.
  static let exactMembers = ["authors", "#p", "#h", "#e"]

  /// Checks `object` (a parsed plaintext) as the descriptor's generation reads it and returns
  /// what it says.
  ///
  /// - Parameters:
  ///   - author: the lease event's pubkey (`#p` values must equal it).
  ///   - tenantOrigin: the origin the lease was sent to (`origin` must equal it).
  static func validate(
    _ object: JSONObject, author: String, tenantOrigin: String, descriptor: PushDescriptor
  ) throws(LeaseRejection) -> LeasePlaintext {
    let limits = descriptor.limitation

    // members
    guard let activeValue = object["active"] else { throw LeaseRejection(.members, "missing active") }
    guard case .bool(let isActive) = activeValue else {
      throw LeaseRejection(.members, "active must be a boolean")
    }
    let expected = isActive ? activeMembers(descriptor.pushProtocol) : tombstoneMembers
    for key in expected where object[key] == nil { throw LeaseRejection(.members, "missing \(key)") }
    for key in object.keys where !expected.contains(key) {
      throw LeaseRejection(.members, "unknown field: \(key)")
    }

    // schema, in member order, then per subscription
    let version = try nonNegativeInteger(object["v"]!, "v")
    let origin = try string(object["origin"]!, "origin")
    var request: (appProfile: String?, transport: String, endpoint: String)?
    if isActive {
      request = (
        try object["app_profile"].map { value throws(LeaseRejection) in try string(value, "app_profile") },
        try string(object["transport"]!, "transport"), try string(object["endpoint"]!, "endpoint")
      )
    }
    let generation = try nonNegativeInteger(object["generation"]!, "generation")
    let shapes = isActive ? try subscriptionShapes(object["subscriptions"]!) : []

    // values
    guard version == LeasePlaintext.version else { throw LeaseRejection(.values, "unsupported version") }
    guard isCount(generation, maxGeneration) else {
      throw LeaseRejection(.values, "generation must be a positive safe integer")
    }
    guard origin == tenantOrigin else { throw LeaseRejection(.values, "origin mismatch") }
    guard isStringLength(origin, limits.maxStringLen) else {
      throw LeaseRejection(.values, "invalid string length")
    }
    guard let request else { return LeasePlaintext(origin: origin, generation: generation, active: nil) }

    // active: nip-pl names an advertised profile and its transport; buzz-push-v1 a transport
    // that is a key of class_support
    if let appProfile = request.appProfile {
      guard let profile = descriptor.appProfiles.first(where: { $0.id == appProfile }) else {
        throw LeaseRejection(.active, "app profile not supported")
      }
      guard profile.transport == request.transport else {
        throw LeaseRejection(.active, "transport mismatch")
      }
    } else {
      guard descriptor.classSupportTransports.contains(request.transport) else {
        throw LeaseRejection(.active, "transport mismatch")
      }
    }
    guard isCount(request.endpoint.utf8.count, limits.maxEndpointLen) else {
      throw LeaseRejection(.active, "invalid endpoint length")
    }
    guard request.appProfile.map({ isStringLength($0, limits.maxStringLen) }) ?? true,
      isStringLength(request.transport, limits.maxStringLen)
    else { throw LeaseRejection(.active, "invalid string length") }
    guard isCount(shapes.count, limits.maxSubscriptionsPerLease) else {
      throw LeaseRejection(.active, "subscription quota exceeded")
    }

    // each subscription
    let classes = supportedClasses(descriptor, transport: request.transport)
    var subscriptions: [LeaseSubscription] = []
    subscriptions.reserveCapacity(shapes.count)
    for shape in shapes {
      guard classes.contains(shape.pushClass) else {
        throw LeaseRejection(.subscription, "class not supported")
      }
      let filter = try self.filter(
        shape.filter, pushClass: shape.pushClass, narrowed: true, author: author, descriptor: descriptor)
      guard shape.ignore.count <= limits.maxIgnore else {
        throw LeaseRejection(.subscription, "ignore quota exceeded")
      }
      var ignore: [LeaseFilter] = []
      ignore.reserveCapacity(shape.ignore.count)
      for ignoreFilter in shape.ignore {
        ignore.append(
          try self.filter(
            ignoreFilter, pushClass: nil, narrowed: false, author: author, descriptor: descriptor))
      }
      if let pTagsMax = shape.pTagsMax, pTagsMax == 0 {
        throw LeaseRejection(.subscription, "p_tags_max must be positive")
      }
      subscriptions.append(
        LeaseSubscription(
          filter: filter, pushClass: shape.pushClass, ignore: ignore, pTagsMax: shape.pTagsMax.map { Int($0) }
        ))
    }
    return LeasePlaintext(
      origin: origin, generation: generation,
      active: LeasePlaintext.Active(
        appProfile: request.appProfile, transport: request.transport, endpoint: request.endpoint,
        subscriptions: subscriptions))
  }

  /// The classes `class_support.<transport>` lists: the APNs vocabulary for `apns`; for another
  /// transport its entry when that is a non-empty array of strings, else `default` alone.
  static func supportedClasses(_ descriptor: PushDescriptor, transport: String) -> [String] {
    if transport == "apns" { return descriptor.classSupport.apns.map(\.rawValue) }
    if let entries = descriptor.classSupport.otherTransports[transport]?.arrayValue, !entries.isEmpty {
      let names = entries.compactMap(\.stringValue)
      if names.count == entries.count { return names }
    }
    return [fallbackClass]
  }

  // MARK: Schema

  /// A subscription whose member types have been checked; its filters are checked later.
  struct Shape {
    var filter: JSONObject
    var pushClass: String
    var ignore: [JSONObject]
    var pTagsMax: Int64?
  }

  static func subscriptionShapes(_ value: JSONValue) throws(LeaseRejection) -> [Shape] {
    guard case .array(let elements) = value else { throw schema("subscriptions must be an array") }
    var shapes: [Shape] = []
    shapes.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      shapes.append(try subscriptionShape(element, path: "subscriptions[\(index)]"))
    }
    return shapes
  }

  /// One subscription's shape; `path` names it in a schema rejection.
  static func subscriptionShape(_ element: JSONValue, path: String) throws(LeaseRejection) -> Shape {
    guard case .object(let subscription) = element else { throw schema("\(path) must be an object") }
    guard let filterValue = subscription["filter"] else { throw schema("missing \(path).filter") }
    guard let classValue = subscription["class"] else { throw schema("missing \(path).class") }
    for key in subscription.keys where !subscriptionMembers.contains(key) {
      throw schema("unknown field: \(path).\(key)")
    }
    guard case .object(let filter) = filterValue else { throw schema("\(path).filter must be an object") }
    guard case .string(let pushClass) = classValue else { throw schema("\(path).class must be a string") }
    var ignore: [JSONObject] = []
    if let ignoreValue = subscription["ignore"] {
      guard case .array(let items) = ignoreValue else { throw schema("\(path).ignore must be an array") }
      for (position, item) in items.enumerated() {
        guard case .object(let ignoreFilter) = item else {
          throw schema("\(path).ignore[\(position)] must be an object")
        }
        ignore.append(ignoreFilter)
      }
    }
    var pTagsMax: Int64?
    if let suppressValue = subscription["suppress"], !suppressValue.isNull {
      guard case .object(let suppress) = suppressValue else {
        throw schema("\(path).suppress must be an object")
      }
      guard let limit = suppress["p_tags_max"] else { throw schema("missing \(path).suppress.p_tags_max") }
      for key in suppress.keys where key != "p_tags_max" {
        throw schema("unknown field: \(path).suppress.\(key)")
      }
      guard case .integer(let number) = limit, number >= 0 else {
        throw schema("\(path).suppress.p_tags_max must be a non-negative integer")
      }
      pTagsMax = number
    }
    return Shape(filter: filter, pushClass: pushClass, ignore: ignore, pTagsMax: pTagsMax)
  }

  private static func nonNegativeInteger(_ value: JSONValue, _ key: String) throws(LeaseRejection) -> Int64 {
    guard case .integer(let number) = value, number >= 0 else {
      throw schema("\(key) must be a non-negative integer")
    }
    return number
  }

  private static func string(_ value: JSONValue, _ key: String) throws(LeaseRejection) -> String {
    guard case .string(let text) = value else { throw schema("\(key) must be a string") }
    return text
  }

  private static func schema(_ detail: String) -> LeaseRejection {
    LeaseRejection(.schema, "invalid lease schema: \(detail)")
  }

  // MARK: Filters

  /// Checks one filter; `pushClass` is nil for an ignore filter (no class rule), `narrowed`
  /// asks for `authors`, `#p` or `#h`, and `author` nil (a filter checked on its own, before a
  /// lease has an author) leaves `p-tag must be self` to the lease.
  static func filter(
    _ object: JSONObject, pushClass: String?, narrowed: Bool, author: String?, descriptor: PushDescriptor
  ) throws(LeaseRejection) -> LeaseFilter {
    let limits = descriptor.limitation
    for key in object.keys where !LeaseFilter.memberNames.contains(key) {
      throw LeaseRejection(.filter, "filter member not permitted: \(key)")
    }
    guard let kindsValue = object["kinds"] else { throw LeaseRejection(.filter, "missing kinds") }
    guard case .array(let kindItems) = kindsValue else {
      throw LeaseRejection(.filter, "kinds must be an array")
    }
    guard isCount(kindItems.count, limits.maxKinds) else {
      throw LeaseRejection(.filter, "invalid kinds count")
    }
    var kinds: [Int] = []
    kinds.reserveCapacity(kindItems.count)
    for item in kindItems {
      guard case .integer(let kind) = item, kind >= 0 else {
        throw LeaseRejection(.filter, "kind must be an integer")
      }
      kinds.append(Int(kind))
    }
    for kind in kinds where !descriptor.pushKinds.contains(kind) {
      throw LeaseRejection(.filter, "kind not push-eligible")
    }
    if pushClass == urgentClass {
      for kind in kinds where !(descriptor.urgentKinds ?? []).contains(kind) {
        throw LeaseRejection(.filter, "class not permitted for kind")
      }
    }
    var exact: [String: [String]] = [:]
    for key in exactMembers {
      guard let value = object[key] else { continue }
      guard case .array(let items) = value else { throw LeaseRejection(.filter, "\(key) must be an array") }
      let limit = key == "authors" ? limits.maxAuthors : key == "#h" ? limits.maxH : limits.maxTagValues
      guard isCount(items.count, limit) else { throw LeaseRejection(.filter, "invalid \(key) count") }
      let strings = items.compactMap(\.stringValue)
      guard strings.count == items.count else {
        throw LeaseRejection(.filter, "\(key) values must be strings")
      }
      exact[key] = strings
    }
    if narrowed, exact["authors"] == nil, exact["#p"] == nil, exact["#h"] == nil {
      throw LeaseRejection(.filter, "lease filter not narrowed")
    }
    for value in exact["authors"] ?? [] where NostrID(value) == nil {
      throw LeaseRejection(.filter, "non-exact match value for author")
    }
    for value in exact["#p"] ?? [] {
      guard NostrID(value) != nil else {
        throw LeaseRejection(.filter, "non-exact match value for p tag")
      }
      guard author == nil || value == author else { throw LeaseRejection(.filter, "p-tag must be self") }
    }
    for value in exact["#h"] ?? [] {
      guard isStringLength(value, limits.maxStringLen) else {
        throw LeaseRejection(.filter, "invalid string length")
      }
      guard LowercaseUUID.isValidV4(value) else { throw LeaseRejection(.filter, "invalid h tag") }
    }
    for value in exact["#e"] ?? [] where NostrID(value) == nil {
      throw LeaseRejection(.filter, "non-exact match value for e tag")
    }
    return LeaseFilter(
      kinds: kinds, authors: exact["authors"], pTags: exact["#p"], hTags: exact["#h"], eTags: exact["#e"])
  }

  /// Whether `text` is 1…`limit` UTF-8 bytes.
  static func isStringLength(_ text: String, _ limit: Int) -> Bool {
    isCount(text.utf8.count, limit)
  }

  /// Whether `count` is in 1…`limit` (false for every count when `limit` < 1).
  static func isCount<Number: BinaryInteger>(_ count: Number, _ limit: Number) -> Bool {
    count >= 1 && count <= limit
  }
}
