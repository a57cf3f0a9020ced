import NostrJSON

extension PushDescriptor {
  /// The descriptor as the `push` object a relay serves: members in the generation's
  /// `PushProtocol.memberNames` order, the same JSON types the strict reader requires, absent
  /// optional members omitted; a `buzz-push-v1` object has no `app_profiles` or `urgent_kinds`.
  ///
  /// What it writes parses back, through `init(strictPush:pushProtocol:)`, to an equal descriptor.
  package var jsonValue: JSONValue {
    var members: [JSONMember] = [
      JSONMember(key: "origin", value: .string(origin)),
      JSONMember(key: "keys", value: .array(keys.map(\.jsonValue))),
    ]
    if pushProtocol == .nipPL {
      members.append(JSONMember(key: "app_profiles", value: .array(appProfiles.map(\.jsonValue))))
    }
    members.append(JSONMember(key: "push_kinds", value: Self.integers(pushKinds)))
    if pushProtocol == .nipPL, let urgentKinds {
      members.append(JSONMember(key: "urgent_kinds", value: Self.integers(urgentKinds)))
    }
    members.append(JSONMember(key: "h_grammar", value: .string(hGrammar)))
    members.append(JSONMember(key: "class_support", value: classSupport.jsonValue))
    members.append(JSONMember(key: "limitation", value: limitation.jsonValue))
    return .object(JSONObject(members))
  }

  /// The compact JSON of `jsonValue`.
  public func jsonBytes() -> [UInt8] { JSONWriter.bytes(jsonValue) }

  private static func integers(_ numbers: [Int]) -> JSONValue {
    .array(numbers.map { .integer(Int64($0)) })
  }
}

extension PushKey {
  /// The key as a `push.keys` entry; `current` and `retiring` only when set.
  package var jsonValue: JSONValue {
    var members = [
      JSONMember(key: "id", value: .string(id)), JSONMember(key: "pubkey", value: .string(pubkey)),
    ]
    if let current { members.append(JSONMember(key: "current", value: .bool(current))) }
    if let retiring { members.append(JSONMember(key: "retiring", value: .bool(retiring))) }
    return .object(JSONObject(members))
  }
}

extension PushAppProfile {
  /// The profile as a `push.app_profiles` entry.
  package var jsonValue: JSONValue {
    .object(JSONObject(["id": .string(id), "transport": .string(transport)]))
  }
}

extension PushClassSupport {
  /// The table as the `class_support` object: `apns` first, then the other transports as given.
  package var jsonValue: JSONValue {
    var object = JSONObject([JSONMember(key: "apns", value: .array(apns.map { .string($0.rawValue) }))])
    object.members.append(contentsOf: otherTransports.members.filter { $0.key != "apns" })
    return .object(object)
  }
}

extension PushLimitation {
  /// The limits as the `limitation` object, members in `memberNames` order.
  package var jsonValue: JSONValue {
    .object(
      JSONObject(
        zip(Self.memberNames, orderedValues).map { JSONMember(key: $0, value: .integer(Int64($1))) }))
  }
}
