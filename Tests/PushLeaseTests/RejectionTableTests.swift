import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// One failing lease: what to change from a valid one, and the exact rejection expected.
struct RejectionCase: Sendable, CustomTestStringConvertible {
  var message: String
  var plaintext = "{$HEAD,\"subscriptions\":[$SUB]}"
  var tags = LeaseTestSupport.validTags
  var kind = 30350
  var content: String?
  var changes: [String: JSONValue] = [:]
  var tenantOrigin = LeaseTestSupport.origin
  var note = ""

  var testDescription: String { note.isEmpty ? message : "\(message) (\(note))" }

  static let d = LeaseTestSupport.validTags[0]
  static let expiration = LeaseTestSupport.validTags[1]
  static let exec = LeaseTestSupport.validTags[2]
  static let now = LeaseTestSupport.now
  static let hex = String(repeating: "ab", count: 32)
}

/// Every row of `Docs/EnrollingFromAnApp.md`'s validator table: a signed event that fails exactly there,
/// and the `invalid: …` text the relay answers.
@Suite struct RejectionTableTests {
  typealias C = RejectionCase
  typealias T = LeaseTestSupport

  static let eventAndTags: [RejectionCase] = [
    C(message: "invalid: wrong event kind", kind: 30351),
    C(message: "invalid: content too long", content: String(repeating: "A", count: 65_537)),
    C(message: "invalid: empty public tag", tags: [C.d, [], C.expiration, C.exec]),
    C(message: "invalid: d tag must have exactly one value", tags: [["d"], C.expiration, C.exec]),
    C(message: "invalid: d tag must have exactly one value", tags: [["d", "a", "b"], C.expiration, C.exec]),
    C(
      message: "invalid: client tag must have exactly one value",
      tags: [C.d, ["client"], C.expiration, C.exec]),
    C(message: "invalid: duplicate d tag", tags: [C.d, C.expiration, C.d, C.exec]),
    C(message: "invalid: duplicate expiration tag", tags: [C.d, C.expiration, C.exec, C.expiration]),
    C(message: "invalid: duplicate exec tag", tags: [C.d, C.exec, C.expiration, C.exec]),
    C(
      message: "invalid: duplicate alt tag", tags: [C.d, ["alt", "a"], C.expiration, C.exec, ["alt", "b"]]),
    C(message: "invalid: unexpected public tag: p", tags: [C.d, C.expiration, C.exec, ["p", C.hex]]),
    C(message: "invalid: missing d tag", tags: [C.expiration, C.exec]),
    C(message: "invalid: invalid d tag length", tags: [["d", ""], C.expiration, C.exec], note: "empty"),
    C(
      message: "invalid: invalid d tag length",
      tags: [["d", String(repeating: "d", count: 65)], C.expiration, C.exec],
      note: "65 bytes"),
    C(
      message: "invalid: invalid d tag length",
      tags: [["d", String(repeating: "é", count: 33)], C.expiration, C.exec],
      note: "33 characters, 66 bytes"),
    C(message: "invalid: missing expiration tag", tags: [C.d, C.exec]),
    C(
      message: "invalid: expiration must be integer Unix seconds",
      tags: [C.d, ["expiration", "+1767312000"], C.exec]),
    C(
      message: "invalid: expiration must be integer Unix seconds",
      tags: [C.d, ["expiration", "01767312000"], C.exec]),
    C(
      message: "invalid: expiration must be integer Unix seconds",
      tags: [C.d, ["expiration", "1767312000.0"], C.exec]),
    C(message: "invalid: expiration must be integer Unix seconds", tags: [C.d, ["expiration", ""], C.exec]),
    C(
      message: "invalid: expiration must be integer Unix seconds", tags: [C.d, ["expiration", "-5"], C.exec]),
    C(
      message: "invalid: expiration must be integer Unix seconds",
      tags: [C.d, ["expiration", "9223372036854775808"], C.exec], note: "over Int64"),
    C(message: "invalid: lease already expired", tags: [C.d, ["expiration", String(C.now - 120)], C.exec]),
    C(message: "invalid: lease already expired", tags: [C.d, ["expiration", "0"], C.exec]),
    C(
      message: "invalid: lease ttl too long", tags: [C.d, ["expiration", String(C.now + 2_592_001)], C.exec]),
    C(message: "invalid: missing exec tag", tags: [C.d, C.expiration]),
    C(message: "invalid: empty exec tag", tags: [C.d, C.expiration, ["exec", ""]]),
    C(message: "invalid: unknown executor key", tags: [C.d, C.expiration, ["exec", "demo-2025-12"]]),
    C(message: "invalid: invalid encrypted content", content: "not a NIP-44 payload"),
    C(message: "invalid: invalid encrypted content", content: "", note: "empty content"),
  ]

  static let parseAndMembers: [RejectionCase] = [
    C(
      message: "invalid: plaintext too long",
      plaintext: "{$HEAD,\"subscriptions\":[$SUB]}" + String(repeating: " ", count: 4096)),
    C(message: "invalid: duplicate object key: v", plaintext: ##"{"v":1,"v":1}"##),
    C(
      message: "invalid: duplicate object key: kinds",
      plaintext: ##"{$HEAD,"subscriptions":[{"filter":{"kinds":[9],"kinds":[9]},"class":"default"}]}"##,
      note: "nested"),
    C(
      message: "invalid: duplicate object key: a.b", plaintext: ##"{"a.b":1,"a.b":2}"##, note: "a dotted key"),
    C(message: "invalid: lease plaintext is not valid JSON", plaintext: ##"{"v":1"##),
    C(message: "invalid: lease plaintext is not valid JSON", plaintext: ##"{"v":1} x"##),
    C(
      message: "invalid: lease plaintext is not valid JSON",
      plaintext: ##"{"x":"## + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + "}",
      note: "depth 17"),
    C(message: "invalid: lease plaintext must be an object", plaintext: "[]"),
    C(message: "invalid: lease plaintext must be an object", plaintext: "\"lease\""),
    C(message: "invalid: missing active", plaintext: ##"{"v":1,"origin":"$ORIGIN","generation":1}"##),
    C(
      message: "invalid: active must be a boolean",
      plaintext: ##"{"v":1,"origin":"$ORIGIN","generation":1,"active":1}"##),
    C(message: "invalid: active must be a boolean", plaintext: ##"{"active":"true"}"##),
    C(message: "invalid: missing v", plaintext: ##"{"origin":"$ORIGIN","generation":1,"active":false}"##),
    C(message: "invalid: missing generation", plaintext: ##"{"v":1,"origin":"$ORIGIN","active":false}"##),
    C(
      message: "invalid: missing endpoint",
      plaintext:
        ##"{"v":1,"origin":"$ORIGIN","app_profile":"$PROFILE","transport":"apns","generation":1,"active":true,"subscriptions":[$SUB]}"##
    ),
    C(message: "invalid: missing subscriptions", plaintext: "{$HEAD}"),
    C(
      message: "invalid: unknown field: endpoint",
      plaintext: ##"{"v":1,"origin":"$ORIGIN","generation":1,"active":false,"endpoint":"grant-1"}"##,
      note: "a tombstone with an endpoint"),
    C(message: "invalid: unknown field: alt", plaintext: ##"{"alt":"x",$HEAD,"subscriptions":[$SUB]}"##),
  ]

  static let schema: [RejectionCase] = [
    C(
      message: "invalid: invalid lease schema: v must be a non-negative integer",
      plaintext: T.active(["v": ##""1""##])),
    C(
      message: "invalid: invalid lease schema: v must be a non-negative integer",
      plaintext: T.active(["v": "-1"])),
    C(
      message: "invalid: invalid lease schema: v must be a non-negative integer",
      plaintext: T.active(["v": "1.0"])),
    C(
      message: "invalid: invalid lease schema: v must be a non-negative integer",
      plaintext: T.tombstone(["v": "true"])),
    C(
      message: "invalid: invalid lease schema: origin must be a string",
      plaintext: T.active(["origin": "null"])),
    C(
      message: "invalid: invalid lease schema: app_profile must be a string",
      plaintext: T.active(["app_profile": "1"])),
    C(
      message: "invalid: invalid lease schema: transport must be a string",
      plaintext: T.active(["transport": "[]"])),
    C(
      message: "invalid: invalid lease schema: endpoint must be a string",
      plaintext: T.active(["endpoint": "{}"])),
    C(
      message: "invalid: invalid lease schema: generation must be a non-negative integer",
      plaintext: T.active(["generation": "1e3"])),
    C(
      message: "invalid: invalid lease schema: generation must be a non-negative integer",
      plaintext: T.tombstone(["generation": "18446744073709551616"]), note: "over Int64"),
    C(
      message: "invalid: invalid lease schema: subscriptions must be an array",
      plaintext: T.active(["subscriptions": "{}"])),
    C(
      message: "invalid: invalid lease schema: subscriptions[1] must be an object",
      plaintext: T.withSubscriptions("[$SUB,[]]")),
    C(
      message: "invalid: invalid lease schema: missing subscriptions[0].filter",
      plaintext: T.withSubscriptions(##"[{"class":"default"}]"##)),
    C(
      message: "invalid: invalid lease schema: missing subscriptions[0].class",
      plaintext: T.withSubscriptions(##"[{"filter":{"kinds":[9],"#p":["$ME"]}}]"##)),
    C(
      message: "invalid: invalid lease schema: unknown field: subscriptions[0].limit",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","limit":1}]"##)),
    C(
      message: "invalid: invalid lease schema: subscriptions[0].filter must be an object",
      plaintext: T.withSubscriptions(##"[{"filter":[9],"class":"default"}]"##)),
    C(
      message: "invalid: invalid lease schema: subscriptions[0].class must be a string",
      plaintext: T.withSubscriptions(##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":null}]"##)),
    C(
      message: "invalid: invalid lease schema: subscriptions[0].ignore must be an array",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":null}]"##),
      note: "null"),
    C(
      message: "invalid: invalid lease schema: subscriptions[0].ignore must be an array",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":{}}]"##)),
    C(
      message: "invalid: invalid lease schema: subscriptions[0].ignore[1] must be an object",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[{"kinds":[9]},"x"]}]"##)),
    C(
      message: "invalid: invalid lease schema: subscriptions[0].suppress must be an object",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","suppress":20}]"##)),
    C(
      message: "invalid: invalid lease schema: missing subscriptions[0].suppress.p_tags_max",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","suppress":{}}]"##)),
    C(
      message: "invalid: invalid lease schema: unknown field: subscriptions[0].suppress.e_tags_max",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","suppress":{"p_tags_max":1,"e_tags_max":1}}]"##
      )),
    C(
      message:
        "invalid: invalid lease schema: subscriptions[0].suppress.p_tags_max must be a non-negative integer",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","suppress":{"p_tags_max":-1}}]"##)),
    C(
      message:
        "invalid: invalid lease schema: subscriptions[0].suppress.p_tags_max must be a non-negative integer",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","suppress":{"p_tags_max":"20"}}]"##)),
  ]

  static let valuesAndActive: [RejectionCase] = [
    C(message: "invalid: unsupported version", plaintext: T.active(["v": "2"])),
    C(message: "invalid: unsupported version", plaintext: T.tombstone(["v": "0"])),
    C(
      message: "invalid: generation must be a positive safe integer", plaintext: T.active(["generation": "0"])
    ),
    C(
      message: "invalid: generation must be a positive safe integer",
      plaintext: T.tombstone(["generation": "9007199254740992"]), note: "2^53"),
    C(message: "invalid: origin mismatch", plaintext: T.active(["origin": ##""ws://127.0.0.1:48112""##])),
    C(message: "invalid: origin mismatch", plaintext: T.tombstone(["origin": ##""ws://127.0.0.1:48111/""##])),
    C(
      message: "invalid: invalid string length", plaintext: T.tombstone(["origin": ##""""##]),
      tenantOrigin: "",
      note: "an empty origin"),
    C(
      message: "invalid: app profile not supported",
      plaintext: T.active(["app_profile": ##""org.example.other""##])),
    C(message: "invalid: transport mismatch", plaintext: T.active(["transport": ##""fcm""##])),
    C(message: "invalid: invalid endpoint length", plaintext: T.active(["endpoint": ##""""##])),
    C(
      message: "invalid: invalid endpoint length",
      plaintext: T.active(["endpoint": "\"" + String(repeating: "e", count: 513) + "\""])),
    C(
      message: "invalid: invalid string length",
      plaintext: T.active(["app_profile": "\"" + String(repeating: "p", count: 257) + "\""]),
      changes: [
        "app_profiles": .array([
          .object(
            JSONObject(["id": .string(String(repeating: "p", count: 257)), "transport": .string("apns")]))
        ])
      ], note: "an advertised profile over max_string_len"),
    C(message: "invalid: subscription quota exceeded", plaintext: T.withSubscriptions("[]")),
    C(
      message: "invalid: subscription quota exceeded",
      plaintext: T.withSubscriptions("[$SUB,$SUB,$SUB,$SUB,$SUB]")),
  ]

  static let subscriptions: [RejectionCase] = [
    C(
      message: "invalid: class not supported",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME"]}"##, pushClass: "urgent")),
    C(
      message: "invalid: class not supported",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME"]}"##, pushClass: "")),
    C(
      message: "invalid: class not supported",
      plaintext: T.active([
        "app_profile": ##""org.nostrpushkit.droid""##, "transport": ##""fcm""##,
        "subscriptions": ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"high"}]"##,
      ]),
      changes: [
        "app_profiles": .array([
          .object(JSONObject(["id": .string("org.nostrpushkit.droid"), "transport": .string("fcm")]))
        ])
      ], note: "fcm without a class_support entry: default alone"),
    C(
      message: "invalid: ignore quota exceeded",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[{"kinds":[9]},{"kinds":[9]},{"kinds":[9]}]}]"##
      ),
      changes: T.limit("max_ignore", 2)),
    C(
      message: "invalid: kind not push-eligible",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[{"kinds":[1]}]}]"##),
      note: "an ignore filter is a filter"),
    C(
      message: "invalid: p_tags_max must be positive",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","suppress":{"p_tags_max":0}}]"##)),
  ]

  static let filters: [RejectionCase] = [
    C(
      message: "invalid: filter member not permitted: since",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME"],"since":1}"##)),
    C(
      message: "invalid: filter member not permitted: #t",
      plaintext: T.withFilter(##"{"#t":["x"],"kinds":[9],"#p":["$ME"]}"##)),
    C(message: "invalid: missing kinds", plaintext: T.withFilter(##"{"#p":["$ME"]}"##)),
    C(message: "invalid: kinds must be an array", plaintext: T.withFilter(##"{"kinds":9,"#p":["$ME"]}"##)),
    C(message: "invalid: invalid kinds count", plaintext: T.withFilter(##"{"kinds":[],"#p":["$ME"]}"##)),
    C(
      message: "invalid: invalid kinds count",
      plaintext: T.withFilter(##"{"kinds":[9,9,9,9,9,9,9,9,9],"#p":["$ME"]}"##)),
    C(
      message: "invalid: kind must be an integer", plaintext: T.withFilter(##"{"kinds":["9"],"#p":["$ME"]}"##)
    ),
    C(
      message: "invalid: kind must be an integer", plaintext: T.withFilter(##"{"kinds":[9.0],"#p":["$ME"]}"##)
    ),
    C(
      message: "invalid: kind must be an integer", plaintext: T.withFilter(##"{"kinds":[-9],"#p":["$ME"]}"##)),
    C(
      message: "invalid: kind not push-eligible",
      plaintext: T.withFilter(##"{"kinds":[9,1111],"#p":["$ME"]}"##)),
    C(
      message: "invalid: class not permitted for kind",
      plaintext: T.withFilter(##"{"kinds":[45003,9],"#p":["$ME"]}"##, pushClass: "urgent"),
      changes: [
        "urgent_kinds": .array([.integer(45003)]),
        "class_support": .object(JSONObject(["apns": .array([.string("default"), .string("urgent")])])),
      ]),
    C(
      message: "invalid: authors must be an array",
      plaintext: T.withFilter(##"{"kinds":[9],"authors":"$ME"}"##)),
    C(message: "invalid: invalid authors count", plaintext: T.withFilter(##"{"kinds":[9],"authors":[]}"##)),
    C(
      message: "invalid: authors values must be strings",
      plaintext: T.withFilter(##"{"kinds":[9],"authors":["$ME",1]}"##)),
    C(message: "invalid: #p must be an array", plaintext: T.withFilter(##"{"kinds":[9],"#p":null}"##)),
    C(message: "invalid: invalid #p count", plaintext: T.withFilter(##"{"kinds":[9],"#p":[]}"##)),
    C(
      message: "invalid: #p values must be strings",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":[["$ME"]]}"##)),
    C(message: "invalid: #h must be an array", plaintext: T.withFilter(##"{"kinds":[9],"#h":{}}"##)),
    C(message: "invalid: invalid #h count", plaintext: T.withFilter(##"{"kinds":[9],"#h":[]}"##)),
    C(
      message: "invalid: #h values must be strings", plaintext: T.withFilter(##"{"kinds":[9],"#h":[true]}"##)),
    C(
      message: "invalid: #e must be an array",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME"],"#e":1}"##)),
    C(
      message: "invalid: invalid #e count", plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME"],"#e":[]}"##)),
    C(
      message: "invalid: #e values must be strings",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME"],"#e":[null]}"##)),
    C(message: "invalid: lease filter not narrowed", plaintext: T.withFilter(##"{"kinds":[9]}"##)),
    C(
      message: "invalid: lease filter not narrowed",
      plaintext: T.withFilter(##"{"kinds":[9],"#e":["\##(C.hex)"]}"##)),
    C(
      message: "invalid: non-exact match value for author",
      plaintext: T.withFilter(##"{"kinds":[9],"authors":["\##(C.hex.uppercased())"]}"##)),
    C(
      message: "invalid: non-exact match value for author",
      plaintext: T.withFilter(##"{"kinds":[9],"authors":["abcd"]}"##)),
    C(
      message: "invalid: non-exact match value for p tag",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME","npub1x"]}"##)),
    C(
      message: "invalid: p-tag must be self", plaintext: T.withFilter(##"{"kinds":[9],"#p":["\##(C.hex)"]}"##)
    ),
    C(message: "invalid: invalid string length", plaintext: T.withFilter(##"{"kinds":[9],"#h":[""]}"##)),
    C(message: "invalid: invalid h tag", plaintext: T.withFilter(##"{"kinds":[9],"#h":["general"]}"##)),
    C(
      message: "invalid: invalid h tag",
      plaintext: T.withFilter(##"{"kinds":[9],"#h":["3f2a1b4c-5d6e-1f70-8a9b-0c1d2e3f4a5b"]}"##),
      note: "version 1"),
    C(
      message: "invalid: invalid h tag",
      plaintext: T.withFilter(##"{"kinds":[9],"#h":["3f2a1b4c-5d6e-4f70-ca9b-0c1d2e3f4a5b"]}"##),
      note: "variant c"),
    C(
      message: "invalid: invalid h tag",
      plaintext: T.withFilter(##"{"kinds":[9],"#h":["3F2A1B4C-5D6E-4F70-8A9B-0C1D2E3F4A5B"]}"##),
      note: "upper case"),
    C(
      message: "invalid: non-exact match value for e tag",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["$ME"],"#e":["note1x"]}"##)),
  ]

  /// Two faults in one event: the earlier check in the table's order is the one reported.
  static let ordering: [RejectionCase] = [
    C(
      message: "invalid: wrong event kind", kind: 1, content: String(repeating: "A", count: 70_000),
      note: "before content"),
    C(
      message: "invalid: content too long", tags: [["p"]], content: String(repeating: "A", count: 70_000),
      note: "before tags"),
    C(message: "invalid: unexpected public tag: p", tags: [["p", C.hex]], note: "before missing d"),
    C(
      message: "invalid: x tag must have exactly one value", tags: [C.d, ["x"], C.d, C.expiration, C.exec],
      note: "tags in event order"),
    C(
      message: "invalid: duplicate d tag", tags: [C.d, C.d, ["x"], C.expiration, C.exec],
      note: "tags in event order"),
    C(message: "invalid: missing d tag", tags: [C.exec], note: "before missing expiration"),
    C(
      message: "invalid: invalid d tag length", tags: [["d", ""], ["expiration", "soon"], C.exec],
      note: "before expiration"),
    C(
      message: "invalid: expiration must be integer Unix seconds", tags: [C.d, ["expiration", "x"]],
      note: "before exec"),
    C(
      message: "invalid: lease already expired", tags: [C.d, ["expiration", "1"], ["exec", "nobody"]],
      note: "before exec"),
    C(
      message: "invalid: unknown executor key", tags: [C.d, C.expiration, ["exec", "nobody"]], content: "x",
      note: "before decrypt"),
    C(
      message: "invalid: plaintext too long", plaintext: "{" + String(repeating: " ", count: 4100),
      note: "before JSON"),
    C(
      message: "invalid: duplicate object key: a", plaintext: #"{"a":1,"a":2,"b":[1,]}"#,
      note: "first reader error"),
    C(
      message: "invalid: lease plaintext is not valid JSON", plaintext: #"{"b":[1,],"a":1,"a":2}"#,
      note: "first reader error"),
    C(
      message: "invalid: lease plaintext is not valid JSON",
      plaintext: #"{"x":"# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        + #","x":1}"#,
      note: "depth before a later duplicate"),
    C(message: "invalid: missing active", plaintext: #"{"v":1,"extra":true}"#, note: "before unknown field"),
    C(
      message: "invalid: missing active",
      plaintext: #"{"x":"# + String(repeating: "[", count: 15) + String(repeating: "]", count: 15) + "}",
      note: "depth 16 still parses"),
    C(
      message: "invalid: missing endpoint",
      plaintext:
        ##"{"v":"1","origin":"$ORIGIN","app_profile":"$PROFILE","transport":"apns","generation":1,"active":true,"subscriptions":[$SUB],"extra":1}"##,
      note: "before unknown field and schema"),
    C(
      message: "invalid: unknown field: extra",
      plaintext: #"{"extra":1,"v":"x","origin":"$ORIGIN","generation":1,"active":false}"#,
      note: "before schema"),
    C(
      message: "invalid: invalid lease schema: origin must be a string",
      plaintext: #"{"generation":"x","v":1,"origin":1,"active":false}"#,
      note: "member order, not document order"),
    C(
      message: "invalid: invalid lease schema: endpoint must be a string",
      plaintext: T.active(["endpoint": "1", "subscriptions": "[1]"]), note: "members before subscriptions"),
    C(
      message: "invalid: invalid lease schema: missing subscriptions[0].class",
      plaintext: T.active(["v": "2", "subscriptions": ##"[{"filter":{}}]"##]), note: "schema before values"),
    C(
      message: "invalid: unsupported version", plaintext: T.tombstone(["v": "3", "generation": "0"]),
      note: "before generation"),
    C(
      message: "invalid: generation must be a positive safe integer",
      plaintext: T.tombstone(["generation": "0", "origin": #""wss://elsewhere.example""#]),
      note: "before origin"),
    C(
      message: "invalid: origin mismatch",
      plaintext: T.active(["origin": #""wss://elsewhere.example""#, "app_profile": #""nope""#]),
      note: "values before active"),
    C(
      message: "invalid: app profile not supported",
      plaintext: T.active(["app_profile": #""nope""#, "endpoint": #""""#])),
    C(
      message: "invalid: transport mismatch",
      plaintext: T.active(["transport": #""fcm""#, "endpoint": #""""#])),
    C(
      message: "invalid: invalid endpoint length",
      plaintext: T.active(["endpoint": #""""#, "subscriptions": "[]"])),
    C(
      message: "invalid: subscription quota exceeded",
      plaintext: T.withSubscriptions(##"[{"filter":{"kinds":[1]},"class":"x"},$SUB,$SUB,$SUB,$SUB]"##),
      note: "before each subscription"),
    C(
      message: "invalid: class not supported",
      plaintext: T.withFilter(##"{"kinds":[1]}"##, pushClass: "loud"),
      note: "before its filter"),
    C(
      message: "invalid: kind not push-eligible",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[1],"#p":["$ME"]},"class":"default","ignore":[{"kinds":[9]},{"kinds":[9]},{"kinds":[9]}]}]"##
      ),
      changes: T.limit("max_ignore", 2), note: "filter before ignore quota"),
    C(
      message: "invalid: ignore quota exceeded",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[{"kinds":[1]},{"kinds":[9]},{"kinds":[9]}]}]"##
      ),
      changes: T.limit("max_ignore", 2), note: "before the ignore filters"),
    C(
      message: "invalid: missing kinds",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[{}],"suppress":{"p_tags_max":0}}]"##
      ),
      note: "ignore filters before suppress"),
    C(
      message: "invalid: p_tags_max must be positive",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","suppress":{"p_tags_max":0}},{"filter":{"kinds":[1]},"class":"loud"}]"##
      ),
      note: "subscriptions in order"),
    C(
      message: "invalid: filter member not permitted: limit", plaintext: T.withFilter(##"{"limit":1}"##),
      note: "before missing kinds"),
    C(
      message: "invalid: kind must be an integer",
      plaintext: T.withFilter(##"{"kinds":[1111,"9"],"#p":["$ME"]}"##), note: "every entry first"),
    C(
      message: "invalid: kind not push-eligible",
      plaintext: T.withFilter(##"{"kinds":[9,1],"#p":["$ME"]}"##, pushClass: "urgent"),
      changes: [
        "urgent_kinds": .array([.integer(45003)]),
        "class_support": .object(JSONObject(["apns": .array([.string("default"), .string("urgent")])])),
      ],
      note: "before the class rule"),
    C(
      message: "invalid: invalid authors count",
      plaintext: T.withFilter(##"{"kinds":[9],"#h":"x","authors":[]}"##),
      note: "key order, not document order"),
    C(
      message: "invalid: invalid #e count", plaintext: T.withFilter(##"{"kinds":[9],"#e":[]}"##),
      note: "shapes before narrowing"),
    C(
      message: "invalid: lease filter not narrowed", plaintext: T.withFilter(##"{"kinds":[9],"#e":["x"]}"##),
      note: "narrowing before values"),
    C(
      message: "invalid: non-exact match value for author",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["x"],"authors":["y"]}"##),
      note: "authors values first"),
    C(
      message: "invalid: p-tag must be self",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["\##(C.hex)","x"]}"##), note: "value by value"),
    C(
      message: "invalid: non-exact match value for p tag",
      plaintext: T.withFilter(##"{"kinds":[9],"#p":["x","\##(C.hex)"]}"##), note: "value by value"),
    C(
      message: "invalid: invalid string length",
      plaintext: T.withFilter(##"{"kinds":[9],"#h":["","general"]}"##), note: "value by value"),
    C(
      message: "invalid: invalid h tag", plaintext: T.withFilter(##"{"kinds":[9],"#h":["general",""]}"##),
      note: "value by value"),
    C(
      message: "invalid: non-exact match value for p tag",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["x"]},"class":"default","ignore":[{"kinds":[1]}]}]"##),
      note: "the subscription's filter before its ignores"),
  ]

  /// Leases at the edges of the rules, which the validator must accept.
  static let accepted: [RejectionCase] = [
    C(message: "", note: "the base lease"),
    C(message: "", plaintext: T.tombstone(), note: "a tombstone"),
    C(message: "", tags: [C.exec, C.expiration, C.d], note: "tags in any order"),
    C(message: "", tags: [C.d, ["alt", "a push lease"], C.expiration, C.exec], note: "one alt tag"),
    C(
      message: "", tags: [["d", String(repeating: "d", count: 64)], C.expiration, C.exec], note: "a 64-byte d"
    ),
    C(message: "", tags: [["d", "x"], C.expiration, C.exec], note: "a 1-byte d of any content"),
    C(message: "", tags: [C.d, ["expiration", String(C.now - 119)], C.exec], note: "within the skew"),
    C(
      message: "", tags: [C.d, ["expiration", String(C.now + 2_592_000)], C.exec],
      note: "exactly max_lease_ttl"),
    C(
      message: "",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[],"suppress":null}]"##),
      note: "empty ignore, null suppress"),
    C(
      message: "",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9,40002],"#h":["3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"],"#e":["\##(C.hex)"]},"class":"time_sensitive","ignore":[{"kinds":[9],"#e":["\##(C.hex)"]}],"suppress":{"p_tags_max":1}}]"##
      ),
      note: "an ignore filter needs no narrowing"),
    C(
      message: "",
      plaintext: T.withFilter(##"{"kinds":[45003],"authors":["\##(C.hex)"]}"##, pushClass: "urgent"),
      changes: [
        "urgent_kinds": .array([.integer(45003)]),
        "class_support": .object(JSONObject(["apns": .array([.string("default"), .string("urgent")])])),
      ],
      note: "urgent for an urgent kind"),
    C(
      message: "",
      plaintext: T.withSubscriptions(
        ##"[{"filter":{"kinds":[45003],"#p":["$ME"]},"class":"urgent","ignore":[{"kinds":[9],"authors":["$ME"]}]}]"##
      ),
      changes: [
        "urgent_kinds": .array([.integer(45003)]),
        "class_support": .object(JSONObject(["apns": .array([.string("default"), .string("urgent")])])),
      ],
      note: "no class rule for ignore filters"),
    C(
      message: "",
      plaintext: T.active([
        "app_profile": #""org.nostrpushkit.droid""#, "transport": #""fcm""#,
        "subscriptions": ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default"}]"##,
      ]),
      changes: [
        "app_profiles": .array([
          .object(JSONObject(["id": .string("org.nostrpushkit.droid"), "transport": .string("fcm")]))
        ])
      ],
      note: "default for a transport without class_support"),
    C(
      message: "",
      plaintext: T.active([
        "app_profile": #""org.nostrpushkit.droid""#, "transport": #""fcm""#,
        "subscriptions": ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"high"}]"##,
      ]),
      changes: [
        "app_profiles": .array([
          .object(JSONObject(["id": .string("org.nostrpushkit.droid"), "transport": .string("fcm")]))
        ]),
        "class_support": .object(
          JSONObject([
            "apns": .array([.string("default")]), "fcm": .array([.string("normal"), .string("high")]),
          ])),
      ],
      note: "an fcm class from class_support.fcm"),
    C(
      message: "",
      plaintext:
        #"{"active":true,"subscriptions":[$SUB],"generation":9007199254740991,"endpoint":"g","transport":"apns","app_profile":"$PROFILE","origin":"$ORIGIN","v":1}"#,
      note: "members in any order, the largest generation"),
  ]

  @Test(arguments: ordering)
  func reportsTheEarlierOfTwoFaults(_ row: RejectionCase) throws {
    let event = try LeaseTestSupport.lease(
      row.plaintext, tags: row.tags, kind: row.kind, content: row.content)
    let validator = LeaseTestSupport.validator(LeaseTestSupport.demoDescriptor(row.changes))
    #expect(
      LeaseTestSupport.verdict(event, validator: validator, tenantOrigin: row.tenantOrigin) == row.message)
  }

  @Test(arguments: accepted)
  func acceptsLeasesAtTheEdgesOfTheRules(_ row: RejectionCase) throws {
    let event = try LeaseTestSupport.lease(
      row.plaintext, tags: row.tags, kind: row.kind, content: row.content)
    let validator = LeaseTestSupport.validator(LeaseTestSupport.demoDescriptor(row.changes))
    #expect(LeaseTestSupport.verdict(event, validator: validator, tenantOrigin: row.tenantOrigin) == nil)
  }

  @Test(arguments: eventAndTags + parseAndMembers + schema + valuesAndActive + subscriptions + filters)
  func rejectsTheEventWithTheTablesText(_ row: RejectionCase) throws {
    let event = try LeaseTestSupport.lease(
      row.plaintext, tags: row.tags, kind: row.kind, content: row.content)
    let validator = LeaseTestSupport.validator(LeaseTestSupport.demoDescriptor(row.changes))
    #expect(
      LeaseTestSupport.verdict(event, validator: validator, tenantOrigin: row.tenantOrigin) == row.message)
  }
}
