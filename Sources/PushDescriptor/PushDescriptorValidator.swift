import NostrEvent
import NostrJSON

/// The strict checks of `Docs/ServingADescriptor.md` for both protocol generations, run in the fixed order of
/// `Docs/CommandLine.md`; the first failure is thrown.
///
/// Order: `supported_extensions` (which also names the generation); `push` is an object; unknown
/// members of `push` (those outside the generation's `PushProtocol.memberNames`); missing members
/// (in that order); the members of `limitation`; then `origin`, `keys`, `app_profiles`,
/// `push_kinds`, `urgent_kinds`, `h_grammar`, `class_support`, each array by index.
struct PushDescriptorValidator {
  /// The generations the caller accepts.
  var protocols: Set<PushProtocol>
  /// The app profile that must be listed with its transport (`nip-pl` only).
  var requiredAppProfile: PushAppProfile?

  func descriptor(fromDocument document: JSONObject) throws(PushDescriptorError) -> PushDescriptor {
    guard document["supported_extensions"] != nil || document["push"] != nil else {
      throw PushDescriptorError(
        code: .noPush, field: "push",
        message: "this relay does not offer NIP-PL push: its NIP-11 has no `push`")
    }
    let pushProtocol = try advertisedProtocol(document["supported_extensions"])
    guard let push = document["push"] else {
      throw PushDescriptorError(code: .missing, field: "push", message: "the document has no push object")
    }
    return try descriptor(fromPush: push, pushProtocol: pushProtocol)
  }

  func descriptor(
    fromPush value: JSONValue, pushProtocol: PushProtocol
  ) throws(PushDescriptorError) -> PushDescriptor {
    guard case .object(let push) = value else { throw wrongType("push", expected: "an object", value) }
    let memberNames = pushProtocol.memberNames
    for key in push.keys where !memberNames.contains(key) {
      throw PushDescriptorError(
        code: .unknownField, field: "push.\(key)",
        message: "a \(pushProtocol.rawValue) push object has no member named \"\(key)\"")
    }
    for name in pushProtocol.requiredMemberNames where push[name] == nil {
      throw missing("push.\(name)")
    }
    let limitation = try self.limitation(push["limitation"]!)
    let origin = try self.origin(push["origin"]!, maxLength: limitation.maxStringLen)
    let keys = try self.keys(push["keys"]!, maxIdLength: limitation.maxStringLen)
    let appProfiles = try push["app_profiles"].map { value throws(PushDescriptorError) in
      try self.appProfiles(value)
    }
    let pushKinds = try self.pushKinds(push["push_kinds"]!)
    let urgentKinds = try push["urgent_kinds"].map { value throws(PushDescriptorError) in
      try self.urgentKinds(value, pushKinds: pushKinds)
    }
    let hGrammar = try self.hGrammar(push["h_grammar"]!)
    let classSupport = try self.classSupport(push["class_support"]!)
    return PushDescriptor(
      pushProtocol: pushProtocol, origin: origin, keys: keys, appProfiles: appProfiles ?? [],
      pushKinds: pushKinds, urgentKinds: urgentKinds, hGrammar: hGrammar, classSupport: classSupport,
      limitation: limitation)
  }

  // MARK: The advertisement

  /// The generation `supported_extensions` advertises: exactly one of `nip-pl` and
  /// `buzz-push-v1`, and one the caller accepts.
  private func advertisedProtocol(_ value: JSONValue?) throws(PushDescriptorError) -> PushProtocol {
    let field = "supported_extensions"
    guard let value else { throw missing(field) }
    guard case .array(let names) = value else { throw wrongType(field, expected: "an array", value) }
    guard !names.isEmpty else { throw invalid(field, "supported_extensions is empty") }
    var advertised: [PushProtocol] = []
    for (index, name) in names.enumerated() {
      guard case .string(let text) = name, !text.isEmpty else {
        throw invalid(field, "entry \(index) is not a non-empty string")
      }
      if let generation = PushProtocol(rawValue: text), !advertised.contains(generation) {
        advertised.append(generation)
      }
    }
    guard advertised.count < 2 else { throw invalid(field, "both nip-pl and buzz-push-v1 advertised") }
    guard let generation = advertised.first, protocols.contains(generation) else {
      let wanted = PushProtocol.allCases.filter(protocols.contains).map { "\"\($0.rawValue)\"" }
      throw PushDescriptorError(
        code: .notAdvertised, field: field,
        message: wanted.isEmpty
          ? "the caller accepts no push protocol generation"
          : "supported_extensions does not list \(wanted.joined(separator: " or "))")
    }
    return generation
  }

  // MARK: Members

  private func limitation(_ value: JSONValue) throws(PushDescriptorError) -> PushLimitation {
    let field = "push.limitation"
    guard case .object(let object) = value else { throw wrongType(field, expected: "an object", value) }
    for key in object.keys where !PushLimitation.memberNames.contains(key) {
      throw PushDescriptorError(
        code: .unknownField, field: "\(field).\(key)", message: "limitation has no member named \"\(key)\"")
    }
    var values: [Int] = []
    values.reserveCapacity(PushLimitation.memberNames.count)
    for name in PushLimitation.memberNames {
      guard let member = object[name] else { throw missing("\(field).\(name)") }
      values.append(try integer(member, field: "\(field).\(name)"))
    }
    for (name, number) in zip(PushLimitation.memberNames, values) where number < 1 {
      throw invalid("\(field).\(name)", "\(name) must be at least 1, got \(number)")
    }
    guard values[0] <= PushLimitation.maxLeaseTTLCeiling else {
      throw invalid(
        "\(field).max_lease_ttl", "max_lease_ttl must be at most \(PushLimitation.maxLeaseTTLCeiling)")
    }
    return PushLimitation(orderedValues: values)!
  }

  private func origin(_ value: JSONValue, maxLength: Int) throws(PushDescriptorError) -> String {
    let field = "push.origin"
    guard case .string(let origin) = value else { throw wrongType(field, expected: "a string", value) }
    guard let parts = URLAuthority(origin), parts.scheme == "ws" || parts.scheme == "wss", parts.rest.isEmpty,
      parts.canonical == origin
    else {
      throw invalid(
        field, "origin must be exactly ws:// or wss:// and a lower-case host with an optional port")
    }
    guard origin.utf8.count <= maxLength else {
      throw invalid(field, "origin is longer than limitation.max_string_len (\(maxLength) bytes)")
    }
    return origin
  }

  private func keys(_ value: JSONValue, maxIdLength: Int) throws(PushDescriptorError) -> [PushKey] {
    let field = "push.keys"
    let keys = try array(value, field: field) { element, path, keys throws(PushDescriptorError) -> PushKey in
      let object = try memberObject(element, field: path, allowed: ["id", "pubkey", "current", "retiring"])
      let id = try nonEmptyString(object["id"], field: "\(path).id")
      if keys.contains(where: { $0.id == id }) {
        throw PushDescriptorError(
          code: .duplicate, field: "\(path).id", message: "key id \"\(id)\" appears twice")
      }
      guard let pubkeyValue = object["pubkey"] else { throw missing("\(path).pubkey") }
      guard case .string(let pubkey) = pubkeyValue else {
        throw wrongType("\(path).pubkey", expected: "a string", pubkeyValue)
      }
      guard NostrID(pubkey) != nil else {
        throw invalid("\(path).pubkey", "pubkey must be 64 lowercase hex digits")
      }
      let current = try optionalBool(object["current"], field: "\(path).current")
      let retiring = try optionalBool(object["retiring"], field: "\(path).retiring")
      return PushKey(id: id, pubkey: pubkey, current: current, retiring: retiring)
    }
    let currentIndices = keys.indices.filter { keys[$0].isCurrent }
    guard currentIndices.count == 1, let currentIndex = currentIndices.first else {
      throw invalid(field, "exactly one key must have current: true, found \(currentIndices.count)")
    }
    guard keys[currentIndex].id.utf8.count <= maxIdLength else {
      throw invalid(
        "\(field)[\(currentIndex)].id", "the current key's id is longer than limitation.max_string_len")
    }
    return keys
  }

  private func appProfiles(_ value: JSONValue) throws(PushDescriptorError) -> [PushAppProfile] {
    let field = "push.app_profiles"
    let profiles = try array(value, field: field) {
      element, path, profiles throws(PushDescriptorError) -> PushAppProfile in
      let object = try memberObject(element, field: path, allowed: ["id", "transport"])
      let id = try nonEmptyString(object["id"], field: "\(path).id")
      if profiles.contains(where: { $0.id == id }) {
        throw PushDescriptorError(
          code: .duplicate, field: "\(path).id", message: "app profile id \"\(id)\" appears twice")
      }
      let transport = try nonEmptyString(object["transport"], field: "\(path).transport")
      return PushAppProfile(id: id, transport: transport)
    }
    if let requiredAppProfile {
      guard let listed = profiles.first(where: { $0.id == requiredAppProfile.id }) else {
        throw invalid(field, "app profile \"\(requiredAppProfile.id)\" is not listed")
      }
      guard listed.transport == requiredAppProfile.transport else {
        throw invalid(
          field,
          "app profile \"\(listed.id)\" uses transport \"\(listed.transport)\", not \"\(requiredAppProfile.transport)\""
        )
      }
    }
    return profiles
  }

  private func pushKinds(_ value: JSONValue) throws(PushDescriptorError) -> [Int] {
    let field = "push.push_kinds"
    let kinds = try array(value, field: field) { element, path, _ throws(PushDescriptorError) in
      let kind = try integer(element, field: path)
      guard kind >= 0 else { throw invalid(path, "a kind must not be negative") }
      return kind
    }
    for required in PushDescriptor.requiredPushKinds where !kinds.contains(required) {
      throw invalid(field, "push_kinds must include kind \(required)")
    }
    return kinds
  }

  private func urgentKinds(_ value: JSONValue, pushKinds: [Int]) throws(PushDescriptorError) -> [Int] {
    let field = "push.urgent_kinds"
    return try array(value, field: field, mayBeEmpty: true) { element, path, _ throws(PushDescriptorError) in
      let kind = try integer(element, field: path)
      guard pushKinds.contains(kind) else { throw invalid(path, "urgent kind \(kind) is not in push_kinds") }
      return kind
    }
  }

  private func hGrammar(_ value: JSONValue) throws(PushDescriptorError) -> String {
    let field = "push.h_grammar"
    guard case .string(let grammar) = value else { throw wrongType(field, expected: "a string", value) }
    guard grammar == PushDescriptor.uuidV4LowercaseGrammar else {
      throw invalid(field, "h_grammar must be \"\(PushDescriptor.uuidV4LowercaseGrammar)\"")
    }
    return grammar
  }

  private func classSupport(_ value: JSONValue) throws(PushDescriptorError) -> PushClassSupport {
    let field = "push.class_support"
    guard case .object(let object) = value else { throw wrongType(field, expected: "an object", value) }
    let apnsField = "\(field).apns"
    guard let apnsValue = object["apns"] else { throw missing(apnsField) }
    let classes = try array(apnsValue, field: apnsField) { element, path, _ throws(PushDescriptorError) in
      guard case .string(let name) = element else { throw wrongType(path, expected: "a string", element) }
      guard let pushClass = PushClass(rawValue: name) else {
        throw invalid(path, "\"\(name)\" is not one of silent, default, time_sensitive, urgent")
      }
      return pushClass
    }
    guard classes.contains(.default) else {
      throw invalid(apnsField, "class_support.apns must include default")
    }
    let others = JSONObject(object.members.filter { $0.key != "apns" })
    return PushClassSupport(apns: classes, otherTransports: others)
  }

  // MARK: Shapes

  /// The array at `field`, each element read by `read` with its path (`field[i]`) and the
  /// elements read before it (for duplicate checks); empty only when `mayBeEmpty`.
  private func array<Element>(
    _ value: JSONValue, field: String, mayBeEmpty: Bool = false,
    _ read: (_ element: JSONValue, _ path: String, _ before: [Element]) throws(PushDescriptorError) -> Element
  ) throws(PushDescriptorError) -> [Element] {
    guard case .array(let elements) = value else { throw wrongType(field, expected: "an array", value) }
    guard mayBeEmpty || !elements.isEmpty else { throw invalid(field, "\(field) must not be empty") }
    var result: [Element] = []
    result.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      result.append(try read(element, "\(field)[\(index)]", result))
    }
    return result
  }

  private func memberObject(
    _ value: JSONValue, field: String, allowed: [String]
  ) throws(PushDescriptorError) -> JSONObject {
    guard case .object(let object) = value else { throw wrongType(field, expected: "an object", value) }
    for key in object.keys where !allowed.contains(key) {
      throw PushDescriptorError(
        code: .unknownField, field: "\(field).\(key)", message: "\(field) has no member named \"\(key)\"")
    }
    return object
  }

  private func nonEmptyString(_ value: JSONValue?, field: String) throws(PushDescriptorError) -> String {
    guard let value else { throw missing(field) }
    guard case .string(let text) = value else { throw wrongType(field, expected: "a string", value) }
    guard !text.isEmpty else { throw invalid(field, "\(field) must not be empty") }
    return text
  }

  /// A JSON integer literal (never a float or a boolean); the range is checked by the caller.
  private func integer(_ value: JSONValue, field: String) throws(PushDescriptorError) -> Int {
    guard case .integer(let number) = value else { throw wrongType(field, expected: "an integer", value) }
    return Int(number)
  }

  private func optionalBool(_ value: JSONValue?, field: String) throws(PushDescriptorError) -> Bool? {
    guard let value else { return nil }
    guard case .bool(let flag) = value else { throw wrongType(field, expected: "a boolean", value) }
    return flag
  }

  // MARK: Errors

  private func missing(_ field: String) -> PushDescriptorError {
    PushDescriptorError(code: .missing, field: field, message: "\(field) is required")
  }

  private func wrongType(_ field: String, expected: String, _ value: JSONValue) -> PushDescriptorError {
    PushDescriptorError(
      code: .wrongType, field: field, message: "\(field) must be \(expected), not a \(value.typeName)")
  }

  private func invalid(_ field: String, _ message: String) -> PushDescriptorError {
    PushDescriptorError(code: .invalidValue, field: field, message: message)
  }
}
