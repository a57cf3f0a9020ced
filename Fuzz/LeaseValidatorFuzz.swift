// libFuzzer harness for the relay's lease validator (module PushLease).
//
// The first input byte picks a mode (its value modulo 3); the lease always comes from a fixed
// test account, sealed with NIP-44 to a fixed test push key, and is judged against a descriptor
// with small limits so every bound is within reach.
// - 0: the rest of the input is the plaintext (as UTF-8, invalid bytes replaced), with valid tags.
// - 1: each following byte appends one public tag from a menu of valid and broken tags, around
//   a valid plaintext.
// - 2: groups of four bytes mutate a valid plaintext's JSON tree (replace a value from a menu,
//   delete or add a member, duplicate an array element) before it is written and sealed.
// Property: `open` never crashes or hangs; a refusal's message is `invalid: ` and a reason; an
// accepted lease's tags and plaintext keep every rule of the schema, checked here by an
// independent reading of the spec (never by PushLease's own checks), and the opened lease says
// what the plaintext says.
import NIP44
import NostrEvent
import NostrJSON
import PushDescriptor
import PushLease

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError(message()) }
}

// Test keys only.
let account = try! SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
let pushKey = try! SecretKey(hex: "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
let me = account.publicKeyHex
let origin = "ws://127.0.0.1:48111"
let profile = "org.nostrpushkit.demo"
let keyID = "fuzz-key"
let now: Int64 = 1_767_225_600
let skew: Int64 = 120
let conversation = try! NIP44.ConversationKey(secretKey: account, publicKey: pushKey.publicKeyHex)
let nonce = [UInt8](repeating: 7, count: 32)

let descriptorJSON = """
  {"origin":"\(origin)","keys":[{"id":"\(keyID)","pubkey":"\(pushKey.publicKeyHex)","current":true}],\
  "app_profiles":[{"id":"\(profile)","transport":"apns"},{"id":"droid","transport":"fcm"}],\
  "push_kinds":[9,40002,45001,45003,1111],"urgent_kinds":[45003],"h_grammar":"uuid-v4-lowercase",\
  "class_support":{"apns":["silent","default","urgent"],"fcm":["high"]},"limitation":{"max_lease_ttl":86400,\
  "max_leases_per_pubkey":4,"max_subscriptions_per_lease":2,"max_kinds":3,"max_authors":2,"max_h":2,\
  "max_tag_values":2,"max_ignore":2,"max_content_len":2400,"max_plaintext_len":1200,"max_endpoint_len":16,\
  "max_string_len":40}}
  """
let descriptor = try! PushDescriptor(strictPush: try! JSONReader().read(descriptorJSON))
let limits = descriptor.limitation
let validator = try! LeaseValidator(descriptor: descriptor, pushKeys: [keyID: pushKey], allowedSkew: skew)

let uuid = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
let otherHex = String(repeating: "ab", count: 32)
let validPlaintext = """
  {"v":1,"origin":"\(origin)","app_profile":"\(profile)","transport":"apns","endpoint":"grant-1","generation":3,\
  "active":true,"subscriptions":[{"filter":{"kinds":[9,40002],"#p":["\(me)"]},"class":"default",\
  "ignore":[{"kinds":[9],"authors":["\(me)"]}],"suppress":{"p_tags_max":20}},\
  {"filter":{"kinds":[45003],"#h":["\(uuid)"],"#e":["\(otherHex)"]},"class":"urgent"}]}
  """
let validTags = [["d", "00112233445566778899aabbccddeeff"], ["expiration", String(now + 3600)], ["exec", keyID]]

// MARK: The lease event

/// A lease event around `plaintext`; id and signature are dummies, since the validator trusts
/// ingest for both.
func event(plaintext: String, tags: [[String]]) -> Event {
  let content = (try? NIP44.encrypt(plaintext, conversationKey: conversation, nonce: nonce)) ?? "not sealed"
  let object = JSONObject([
    "id": .string(String(repeating: "0", count: 64)), "pubkey": .string(me), "created_at": .integer(now),
    "kind": .integer(30350), "tags": .array(tags.map { .array($0.map(JSONValue.string)) }),
    "content": .string(content), "sig": .string(String(repeating: "0", count: 128)),
  ])
  return try! Event(jsonValue: .object(object))
}

// MARK: An independent reading of the rules an accepted lease must keep

func isLowerHex64(_ text: String) -> Bool {
  text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
}

func isUUIDv4(_ text: String) -> Bool {
  let bytes = Array(text.utf8)
  guard bytes.count == 36 else { return false }
  for (index, byte) in bytes.enumerated() {
    let hex = (48...57).contains(byte) || (97...102).contains(byte)
    switch index {
    case 8, 13, 18, 23: if byte != 45 { return false }
    case 14: if byte != 52 { return false }
    case 19: if ![56, 57, 97, 98].contains(byte) { return false }
    default: if !hex { return false }
    }
  }
  return true
}

func checkTags(_ tags: [[String]], opened: OpenedLease) {
  var seen: [String: String] = [:]
  for tag in tags {
    check(tag.count == 2, "accepted a tag of \(tag.count) elements: \(tag)")
    check(["d", "expiration", "exec", "alt"].contains(tag[0]), "accepted the tag \(tag[0])")
    check(seen[tag[0]] == nil, "accepted a second \(tag[0]) tag")
    seen[tag[0]] = tag[1]
  }
  let d = seen["d"] ?? ""
  check((1...64).contains(d.utf8.count), "accepted a d of \(d.utf8.count) bytes")
  let expiration = seen["expiration"] ?? ""
  check(
    expiration == "0" || (expiration.first != "0" && !expiration.isEmpty && expiration.allSatisfy(\.isASCII)
      && expiration.allSatisfy(\.isNumber)), "accepted the expiration \(expiration)")
  let seconds = Int64(expiration) ?? -1
  check(seconds > now - skew && seconds <= now + Int64(limits.maxLeaseTTL), "accepted expiration \(seconds)")
  check(seen["exec"] == keyID, "accepted exec \(seen["exec"] ?? "none")")
  check(opened.address.d == d && opened.expiration == seconds && opened.keyID == keyID, "opened tags differ")
}

func checkFilter(_ value: JSONValue, subscription: Bool, pushClass: String) -> Bool {
  guard case .object(let filter) = value else { return false }
  guard filter.keys.allSatisfy({ ["kinds", "authors", "#p", "#h", "#e"].contains($0) }) else { return false }
  guard case .array(let kinds)? = filter["kinds"], (1...limits.maxKinds).contains(kinds.count) else { return false }
  for kind in kinds {
    guard case .integer(let number) = kind, descriptor.pushKinds.contains(Int(number)) else { return false }
    if subscription && pushClass == "urgent" && number != 45003 { return false }
  }
  let counts = ["authors": limits.maxAuthors, "#p": limits.maxTagValues, "#h": limits.maxH, "#e": limits.maxTagValues]
  for (key, limit) in counts {
    guard let member = filter[key] else { continue }
    guard case .array(let items) = member, (1...limit).contains(items.count) else { return false }
    for item in items {
      guard case .string(let text) = item else { return false }
      switch key {
      case "authors", "#e": if !isLowerHex64(text) { return false }
      case "#p": if text != me { return false }
      default: if !isUUIDv4(text) || text.utf8.count > limits.maxStringLen { return false }
      }
    }
  }
  if subscription && filter["authors"] == nil && filter["#p"] == nil && filter["#h"] == nil { return false }
  return true
}

func checkPlaintext(_ text: String, opened: OpenedLease) {
  check(text.utf8.count <= limits.maxPlaintextLen, "accepted a plaintext of \(text.utf8.count) bytes")
  guard case .object(let root)? = try? JSONReader(maxDepth: 16).read(text) else {
    fatalError("accepted a plaintext that is not a JSON object of depth ≤ 16: \(text)")
  }
  guard case .bool(let active)? = root["active"] else { fatalError("accepted without a boolean active") }
  let members =
    active
    ? ["v", "origin", "app_profile", "transport", "endpoint", "generation", "active", "subscriptions"]
    : ["v", "origin", "generation", "active"]
  check(Set(root.keys) == Set(members) && root.count == members.count, "accepted members \(root.keys)")
  check(root["v"] == .integer(1), "accepted v \(String(describing: root["v"]))")
  check(root["origin"] == .string(origin), "accepted origin \(String(describing: root["origin"]))")
  guard case .integer(let generation)? = root["generation"], (1...((1 << 53) - 1)).contains(generation) else {
    fatalError("accepted generation \(String(describing: root["generation"]))")
  }
  check(opened.generation == generation && opened.origin == origin, "opened values differ")
  check(opened.isActive == active, "opened activity differs")
  guard active else { return }
  guard case .string(let appProfile)? = root["app_profile"], case .string(let transport)? = root["transport"],
    let listed = descriptor.appProfiles.first(where: { $0.id == appProfile }), listed.transport == transport,
    appProfile.utf8.count <= limits.maxStringLen
  else { fatalError("accepted app profile \(String(describing: root["app_profile"]))") }
  guard case .string(let endpoint)? = root["endpoint"], (1...limits.maxEndpointLen).contains(endpoint.utf8.count)
  else { fatalError("accepted endpoint \(String(describing: root["endpoint"]))") }
  guard case .array(let subscriptions)? = root["subscriptions"],
    (1...limits.maxSubscriptionsPerLease).contains(subscriptions.count)
  else { fatalError("accepted subscriptions \(String(describing: root["subscriptions"]))") }
  let classes = transport == "apns" ? descriptor.classSupport.apns.map(\.rawValue) : ["high"]
  for subscription in subscriptions {
    guard case .object(let object) = subscription,
      object.keys.allSatisfy({ ["filter", "class", "ignore", "suppress"].contains($0) }),
      case .string(let pushClass)? = object["class"], classes.contains(pushClass),
      let filter = object["filter"], checkFilter(filter, subscription: true, pushClass: pushClass)
    else { fatalError("accepted subscription \(subscription)") }
    if let ignore = object["ignore"] {
      guard case .array(let filters) = ignore, filters.count <= limits.maxIgnore,
        filters.allSatisfy({ checkFilter($0, subscription: false, pushClass: pushClass) })
      else { fatalError("accepted ignore \(ignore)") }
    }
    if let suppress = object["suppress"], !suppress.isNull {
      guard case .object(let members) = suppress, members.keys == ["p_tags_max"],
        case .integer(let limit)? = members["p_tags_max"], limit >= 1
      else { fatalError("accepted suppress \(suppress)") }
    }
  }
  guard case .active(let openedProfile, let openedTransport, let openedEndpoint, let hash, let openedSubscriptions) =
    opened.state
  else { fatalError("opened an active lease as a tombstone") }
  check(openedProfile == appProfile && openedTransport == transport && openedEndpoint == endpoint, "opened request")
  check(hash == Hex.encode(NostrSHA256.hash(Array(endpoint.utf8))), "endpoint hash")
  check(openedSubscriptions.count == subscriptions.count, "opened subscription count")
}

func judge(plaintext: String, tags: [[String]]) {
  let lease = event(plaintext: plaintext, tags: tags)
  do {
    let opened = try validator.open(lease, tenantOrigin: origin, now: now)
    check(lease.content.utf8.count <= limits.maxContentLen, "accepted content of \(lease.content.utf8.count) bytes")
    checkTags(tags, opened: opened)
    checkPlaintext(plaintext, opened: opened)
  } catch {
    check(error.message.hasPrefix("invalid: ") && error.message.count > 9, "bad rejection \(error.message)")
  }
}

// MARK: Mode 1: tags from a menu

let tagMenu: [[String]] = [
  validTags[0], validTags[1], validTags[2], ["alt", "a push lease"], ["d", ""], ["d", String(repeating: "x", count: 65)],
  ["expiration", "+\(now + 60)"], ["expiration", String(now - skew)], ["expiration", String(now + 86_401)],
  ["expiration", "0\(now + 60)"], ["exec", ""], ["exec", "other"], [], ["d"], ["d", "a", "b"], ["p", me],
]

// MARK: Mode 2: JSON tree mutations

let valueMenu: [JSONValue] = [
  .integer(-1), .integer(0), .integer(1), .integer(2), .integer(20), .integer((1 << 53) - 1), .integer(1 << 53),
  .integer(9), .integer(1111), .integer(45003), .integer(7), .float(1.0), .bool(true), .bool(false), .null,
  .string(""), .string(me), .string(otherHex), .string(uuid), .string("3f2a1b4c-5d6e-4f70-ca9b-0c1d2e3f4a5b"),
  .string(origin), .string("apns"), .string("fcm"), .string("default"), .string("urgent"), .string("high"),
  .string(profile), .string("droid"), .string(String(repeating: "e", count: 17)), .array([]), .object(JSONObject()),
  .array([.string(me)]), .array([.integer(9)]), .array([.string(uuid), .string(uuid), .string(uuid)]),
]
let keyMenu = ["v", "kinds", "authors", "#p", "#h", "#e", "since", "ignore", "suppress", "p_tags_max", "class", "x"]

/// `value` with one mutation at the node `path` picks (each byte chooses a child), `operation`
/// choosing what happens there.
func mutate(_ value: JSONValue, path: ArraySlice<UInt8>, operation: UInt8, pick: UInt8) -> JSONValue {
  if let step = path.first, step & 0x80 == 0 {
    switch value {
    case .object(var object) where !object.members.isEmpty:
      let index = Int(step) % object.members.count
      object.members[index].value = mutate(
        object.members[index].value, path: path.dropFirst(), operation: operation, pick: pick)
      return .object(object)
    case .array(var items) where !items.isEmpty:
      let index = Int(step) % items.count
      items[index] = mutate(items[index], path: path.dropFirst(), operation: operation, pick: pick)
      return .array(items)
    default: break
    }
  }
  switch (operation % 4, value) {
  case (1, .object(var object)) where !object.members.isEmpty:
    object.members.remove(at: Int(pick) % object.members.count)
    return .object(object)
  case (2, .object(var object)):
    let key = keyMenu[Int(pick) % keyMenu.count]
    if object[key] == nil { object.members.append(JSONMember(key: key, value: valueMenu[Int(pick) % valueMenu.count])) }
    return .object(object)
  case (3, .array(var items)) where !items.isEmpty:
    items.append(items[Int(pick) % items.count])
    return .array(items)
  default:
    return valueMenu[Int(pick) % valueMenu.count]
  }
}

let validTree = try! JSONReader().read(validPlaintext)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
  guard let mode = input.first else { return 0 }
  let rest = input.dropFirst()
  switch mode % 3 {
  case 0:
    judge(plaintext: String(decoding: rest, as: UTF8.self), tags: validTags)
  case 1:
    judge(plaintext: validPlaintext, tags: rest.prefix(12).map { tagMenu[Int($0) % tagMenu.count] })
  default:
    var tree = validTree
    var bytes = rest.prefix(64)
    while bytes.count >= 4 {
      let group = Array(bytes.prefix(4))
      bytes = bytes.dropFirst(4)
      let depth = Int(group[0] % 6)
      let path = ArraySlice((0..<depth).map { group[0] &+ UInt8($0) &* group[1] & 0x7F })
      tree = mutate(tree, path: path, operation: group[2], pick: group[3])
    }
    judge(plaintext: JSONWriter.string(tree), tags: validTags)
  }
  return 0
}
