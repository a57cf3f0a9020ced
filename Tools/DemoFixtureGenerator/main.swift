// Generates Fixtures/demo: really signed events, a NIP-11 document with a push descriptor, a PNG
// avatar and the TEST-ONLY keys used. Run through Scripts/make-demo-fixtures; the output is committed.
// `--protocol buzz-push-v1` writes the same world served as buzz-push-v1 (Fixtures/demo-v1): the
// NIP-11 document advertises buzz-push-v1 and its push object has no app_profiles or urgent_kinds.
import Foundation
import NostrEvent
import NostrJSON

var arguments = Array(CommandLine.arguments.dropFirst())
/// The protocol generation the NIP-11 document advertises: `nip-pl` (the default) or `buzz-push-v1`.
var pushProtocol = "nip-pl"
if arguments.count == 3, arguments[0] == "--protocol", ["nip-pl", "buzz-push-v1"].contains(arguments[1]) {
  pushProtocol = arguments[1]
  arguments.removeFirst(2)
}
guard arguments.count == 1, let folderPath = arguments.first else {
  FileHandle.standardError.write(
    Data("usage: DemoFixtureGenerator [--protocol nip-pl|buzz-push-v1] OUTPUT_FOLDER\n".utf8))
  exit(2)
}
let folder = URL(fileURLWithPath: folderPath, isDirectory: true)

/// 2026-01-01T00:00:00Z: every `created_at` is this plus a fixed offset, so tests can use `--now`.
let baseTime: Int64 = 1_767_225_600
/// The relay port written into the avatar URL and the push origin (see Fixtures/demo/README.md).
let demoPort = 48111
let relayOrigin = "http://127.0.0.1:\(demoPort)"
let channel = "3f6c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13"

let relay = try DemoKey(role: "relay")
let account = try DemoKey(role: "account")
let alice = try DemoKey(role: "alice")
let carol = try DemoKey(role: "carol")

var events: [(name: String, event: Event)] = []

@MainActor func sign(
  _ name: String, _ key: DemoKey, offset: Int64, kind: Int, tags: [[String]], content: String
) throws -> Event {
  let event = try UnsignedEvent(
    pubkey: key.pubkey, createdAt: baseTime + offset, kind: kind, tags: tags, content: content
  )
  .signed(with: key.secret)
  guard event.verify().isValid else { fatalError("\(name) does not verify") }
  events.append((name, event))
  return event
}

func json(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue { .object(JSONObject(pairs)) }

_ = try sign(
  "channel_metadata", relay, offset: 0, kind: 39000,
  tags: [["d", channel], ["name", "relay-dev"], ["about", "Building the push relay"], ["t", "stream"]],
  content: "")
_ = try sign(
  "membership", relay, offset: 10, kind: 39002,
  tags: [["d", channel], ["p", alice.pubkey], ["p", account.pubkey], ["p", carol.pubkey]], content: "")
let profile = json([
  "name": .string("alice"), "display_name": .string("Alice Martin"),
  "about": .string("Writes the relay's push code."), "picture": .string("\(relayOrigin)/media/avatar.png"),
])
_ = try sign("sender_profile", alice, offset: 20, kind: 0, tags: [], content: JSONWriter.string(profile))
let root = try sign(
  "root_message", alice, offset: 100, kind: 9, tags: [["h", channel], ["p", account.pubkey]],
  content: "Morning! The fixture relay is up; the demo should resolve two wakes now.")
let carolReply = try sign(
  "carol_reply", carol, offset: 200, kind: 9,
  tags: [["h", channel], ["p", account.pubkey], ["e", root.id, "", "root"]],
  content: "Nice. Does it serve the avatar over NIP-98 too?")
_ = try sign(
  "account_own_message", account, offset: 300, kind: 9, tags: [["h", channel], ["p", alice.pubkey]],
  content: "I'll try it after lunch.")
_ = try sign(
  "thread_reply", alice, offset: 400, kind: 9,
  tags: [
    ["h", channel], ["p", account.pubkey], ["p", carol.pubkey], ["e", root.id, "", "root"],
    ["e", carolReply.id, "", "reply"],
  ],
  content: "Yes: `GET /media/avatar.png` needs a NIP-98 header, and it answers 304 on a matching ETag.")
_ = try sign(
  "broadcast_reply", alice, offset: 500, kind: 9,
  tags: [["h", channel], ["p", account.pubkey], ["e", root.id, "", "root"], ["broadcast", "1"]],
  content:
    "Heads up, everyone: the **demo** is ready. Read [the fixture notes](https://example.com/notes) first.")

let limitation = json([
  "max_lease_ttl": .integer(2_592_000), "max_leases_per_pubkey": .integer(8),
  "max_subscriptions_per_lease": .integer(4), "max_kinds": .integer(8), "max_authors": .integer(64),
  "max_h": .integer(32), "max_tag_values": .integer(64), "max_ignore": .integer(256),
  "max_content_len": .integer(65_536), "max_plaintext_len": .integer(4096), "max_endpoint_len": .integer(512),
  "max_string_len": .integer(256),
])
var pushMembers = JSONObject([
  "origin": .string("ws://127.0.0.1:\(demoPort)"),
  "keys": .array([
    json(["id": .string("demo-2026-01"), "pubkey": .string(relay.pubkey), "current": .bool(true)])
  ]),
  "app_profiles": .array([json(["id": .string("org.nostrpushkit.demo"), "transport": .string("apns")])]),
  // NIP-17 gift wraps (1059) wake too, in both generations: the demo's lease asks for direct messages.
  "push_kinds": .array([9, 40002, 45001, 45003, 1059].map { .integer($0) }),
  "urgent_kinds": .array([]),
  "h_grammar": .string("uuid-v4-lowercase"),
  "class_support": json(["apns": .array(["silent", "default", "time_sensitive"].map { .string($0) })]),
  "limitation": limitation,
])
if pushProtocol == "buzz-push-v1" {
  // One app per gateway: no app profile anywhere, and no urgent_kinds member.
  pushMembers["app_profiles"] = nil
  pushMembers["urgent_kinds"] = nil
}
let push = JSONValue.object(pushMembers)
let information = json([
  "name": .string("NostrPushKit demo relay"),
  "description": .string("Loopback fixture relay for the nostr-push demo. Test data only."),
  "pubkey": .string(relay.pubkey),
  "self": .string(relay.pubkey),
  "contact": .string("mailto:demo@example.com"),
  "supported_nips": .array([1, 11, 29, 98].map { .integer($0) }),
  "software": .string("https://github.com/nostrpushkit/NostrPushKit"),
  "version": .string("0.1.0-demo"),
  "supported_extensions": .array([.string(pushProtocol)]),
  "push": push,
  "software_commit": .string("demo"),
])

let keyEntries = [relay, account, alice, carol].map { key -> JSONMember in
  JSONMember(
    key: key.role, value: json(["secret_key": .string(key.secretHex), "pubkey": .string(key.pubkey)]))
}
let keys = JSONValue.object(
  JSONObject(
    [
      JSONMember(
        key: "warning",
        value: .string("TEST KEYS ONLY. Published with the repository; never use them for anything real."))
    ]
      + keyEntries))

var eventIDs = JSONObject()
for (name, event) in events { eventIDs[name] = .string(event.id) }
let manifest = json([
  "note": .string(
    "Facts about this data set for tests; see README.md. Generated by Scripts/make-demo-fixtures."),
  "base_created_at": .integer(baseTime),
  "demo_port": .integer(Int64(demoPort)),
  "channel_id": .string(channel),
  "relay_pubkey": .string(relay.pubkey),
  "account_pubkey": .string(account.pubkey),
  "sender_pubkey": .string(alice.pubkey),
  "other_member_pubkey": .string(carol.pubkey),
  "events": .object(eventIDs),
])

let avatar = PNGEncoder.encode(width: 64, height: 64) { x, y in
  let dx = x - 32
  let dy = y - 32
  let inside = dx * dx + dy * dy < 26 * 26
  return inside ? (0x7B, 0x3F, UInt8(0xA0 + y)) : (0xF4, 0xEE, 0xE0)
}

try FileManager.default.createDirectory(
  at: folder.appendingPathComponent("media"), withIntermediateDirectories: true)
func write(_ bytes: [UInt8], _ name: String) throws {
  try Data(bytes).write(to: folder.appendingPathComponent(name))
}
try write(PrettyJSON.bytes(information), "nip11.json")
try write(events.flatMap { $0.event.jsonBytes() + [0x0A] }, "events.jsonl")
try write(PrettyJSON.bytes(keys), "keys.json")
try write(Array((account.secretHex + "\n").utf8), "account.key")
try write(PrettyJSON.bytes(manifest), "manifest.json")
try write(avatar, "media/avatar.png")
print("wrote \(events.count) events to \(folder.path)")
for (name, event) in events { print("\(name) \(event.id) kind \(event.kind) created_at \(event.createdAt)") }
