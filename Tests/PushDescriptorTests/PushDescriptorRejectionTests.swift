import Foundation
import NostrJSON
import PushDescriptor
import Testing

/// One document the strict part must reject, and the field and code it must name.
struct RejectionCase: Sendable, CustomTestStringConvertible {
  var name: String
  var bytes: [UInt8]
  var field: String
  var code: PushDescriptorError.Code

  var testDescription: String { name }

  /// The sample document with the value at `path` replaced by the JSON `text` (nil removes it).
  init(_ name: String, set path: String, to text: String?, _ field: String, _ code: PushDescriptorError.Code)
  {
    let value = text.map { try! JSONReader().read($0) }
    let document = JSONPath.updating(.object(TestSupport.document), at: path, to: value)
    self.init(name, bytes: TestSupport.bytes(document), field, code)
  }

  /// The sample document with several replacements applied in order.
  init(_ name: String, sets: [(String, String?)], _ field: String, _ code: PushDescriptorError.Code) {
    var document = JSONValue.object(TestSupport.document)
    for (path, text) in sets {
      document = JSONPath.updating(document, at: path, to: text.map { try! JSONReader().read($0) })
    }
    self.init(name, bytes: TestSupport.bytes(document), field, code)
  }

  /// Raw bytes (for what a `JSONValue` cannot hold, such as a duplicate member name).
  init(_ name: String, bytes: [UInt8], _ field: String, _ code: PushDescriptorError.Code) {
    self.name = name
    self.bytes = bytes
    self.field = field
    self.code = code
  }

  /// The sample document's text with its first `original` replaced by `replacement`.
  init(
    _ name: String, replacing original: String, with replacement: String, _ field: String,
    _ code: PushDescriptorError.Code
  ) {
    let text = String(decoding: TestSupport.bytes(TestSupport.document), as: UTF8.self)
    let range = text.range(of: original)!
    self.init(name, bytes: Array(text.replacingCharacters(in: range, with: replacement).utf8), field, code)
  }
}

@Suite struct PushDescriptorRejectionTests {
  static let hexA = TestSupport.hexA

  static let cases: [RejectionCase] = [
    // The document
    RejectionCase("root is an array", bytes: Array("[{}]".utf8), "document", .wrongType),
    RejectionCase("root is a string", bytes: Array("\"nip-pl\"".utf8), "document", .wrongType),
    RejectionCase("not JSON", bytes: Array("{\"push\":".utf8), "document", .wrongType),
    RejectionCase("empty input", bytes: [], "document", .wrongType),
    RejectionCase(
      "invalid UTF-8", bytes: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], "document", .wrongType),
    RejectionCase(
      "a relay without push", bytes: Array(#"{"name":"plain","supported_nips":[1,11]}"#.utf8), "push", .noPush
    ),
    // supported_extensions
    RejectionCase(
      "supported_extensions missing", set: "supported_extensions", to: nil, "supported_extensions", .missing),
    RejectionCase(
      "supported_extensions null", set: "supported_extensions", to: "null", "supported_extensions", .wrongType
    ),
    RejectionCase(
      "supported_extensions a string", set: "supported_extensions", to: "\"nip-pl\"", "supported_extensions",
      .wrongType),
    RejectionCase(
      "supported_extensions an object", set: "supported_extensions", to: "{\"nip-pl\":true}",
      "supported_extensions", .wrongType),
    RejectionCase(
      "supported_extensions empty", set: "supported_extensions", to: "[]", "supported_extensions",
      .invalidValue),
    RejectionCase(
      "supported_extensions integer entry", set: "supported_extensions", to: "[\"nip-pl\",1]",
      "supported_extensions", .invalidValue),
    RejectionCase(
      "supported_extensions empty entry", set: "supported_extensions", to: "[\"\",\"nip-pl\"]",
      "supported_extensions", .invalidValue),
    RejectionCase(
      "supported_extensions null entry", set: "supported_extensions", to: "[null]", "supported_extensions",
      .invalidValue),
    RejectionCase(
      "supported_extensions without nip-pl", set: "supported_extensions", to: "[\"nip-xx\"]",
      "supported_extensions", .notAdvertised),
    RejectionCase(
      "supported_extensions upper-case NIP-PL", set: "supported_extensions", to: "[\"NIP-PL\"]",
      "supported_extensions", .notAdvertised),
    // push
    RejectionCase("push missing", set: "push", to: nil, "push", .missing),
    RejectionCase("push an array", set: "push", to: "[]", "push", .wrongType),
    RejectionCase("push null", set: "push", to: "null", "push", .wrongType),
    RejectionCase(
      "unknown push member", set: "push.read_state_snapshot", to: "{}", "push.read_state_snapshot",
      .unknownField),
    RejectionCase(
      "unknown push member before a missing one", sets: [("push.origin", nil), ("push.extra", "1")],
      "push.extra", .unknownField),
    RejectionCase(
      "missing member before bad limitation", sets: [("push.limitation.max_h", "0"), ("push.keys", nil)],
      "push.keys", .missing),
    RejectionCase(
      "limitation before origin", sets: [("push.origin", "1"), ("push.limitation.max_h", "0")],
      "push.limitation.max_h", .invalidValue),
    RejectionCase(
      "origin before keys", sets: [("push.keys", "[]"), ("push.origin", "\"wss://x/\"")], "push.origin",
      .invalidValue),
    // origin
    RejectionCase("origin missing", set: "push.origin", to: nil, "push.origin", .missing),
    RejectionCase("origin a number", set: "push.origin", to: "443", "push.origin", .wrongType),
    RejectionCase(
      "origin https", set: "push.origin", to: "\"https://push.example\"", "push.origin", .invalidValue),
    RejectionCase(
      "origin with slash", set: "push.origin", to: "\"wss://push.example/\"", "push.origin", .invalidValue),
    RejectionCase(
      "origin with path", set: "push.origin", to: "\"wss://push.example/push\"", "push.origin", .invalidValue),
    RejectionCase(
      "origin with userinfo", set: "push.origin", to: "\"wss://me@push.example\"", "push.origin",
      .invalidValue),
    RejectionCase(
      "origin with query", set: "push.origin", to: "\"wss://push.example?a=1\"", "push.origin", .invalidValue),
    RejectionCase(
      "origin with fragment", set: "push.origin", to: "\"wss://push.example#x\"", "push.origin", .invalidValue
    ),
    RejectionCase(
      "origin upper-case host", set: "push.origin", to: "\"wss://Push.example\"", "push.origin", .invalidValue
    ),
    RejectionCase(
      "origin upper-case scheme", set: "push.origin", to: "\"WSS://push.example\"", "push.origin",
      .invalidValue),
    RejectionCase("origin empty host", set: "push.origin", to: "\"wss://\"", "push.origin", .invalidValue),
    // An IPv6 origin must be written as every module canonicalises it (inet_ntop's form).
    RejectionCase(
      "origin IPv6 not canonical", set: "push.origin", to: "\"ws://[0:0:0:0:0:0:0:1]:8080\"", "push.origin",
      .invalidValue),
    RejectionCase(
      "origin port with a leading zero", set: "push.origin", to: "\"ws://push.example:0443\"", "push.origin",
      .invalidValue),
    RejectionCase(
      "origin empty port", set: "push.origin", to: "\"wss://push.example:\"", "push.origin", .invalidValue),
    RejectionCase(
      "origin port too large", set: "push.origin", to: "\"wss://push.example:65536\"", "push.origin",
      .invalidValue),
    RejectionCase(
      "origin longer than max_string_len", sets: [("push.limitation.max_string_len", "8")], "push.origin",
      .invalidValue),
    // keys
    RejectionCase("keys missing", set: "push.keys", to: nil, "push.keys", .missing),
    RejectionCase("keys an object", set: "push.keys", to: "{}", "push.keys", .wrongType),
    RejectionCase("keys empty", set: "push.keys", to: "[]", "push.keys", .invalidValue),
    RejectionCase("key not an object", set: "push.keys[0]", to: "\"k1\"", "push.keys[0]", .wrongType),
    RejectionCase(
      "key with unknown member", set: "push.keys[1].label", to: "\"x\"", "push.keys[1].label", .unknownField),
    RejectionCase("key id missing", set: "push.keys[0].id", to: nil, "push.keys[0].id", .missing),
    RejectionCase("key id a number", set: "push.keys[0].id", to: "1", "push.keys[0].id", .wrongType),
    RejectionCase("key id empty", set: "push.keys[1].id", to: "\"\"", "push.keys[1].id", .invalidValue),
    RejectionCase("key id repeated", set: "push.keys[1].id", to: "\"k1\"", "push.keys[1].id", .duplicate),
    RejectionCase("key pubkey missing", set: "push.keys[1].pubkey", to: nil, "push.keys[1].pubkey", .missing),
    RejectionCase(
      "key pubkey an array", set: "push.keys[1].pubkey", to: "[]", "push.keys[1].pubkey", .wrongType),
    RejectionCase(
      "key pubkey upper-case", set: "push.keys[1].pubkey", to: "\"\(hexA.uppercased())\"",
      "push.keys[1].pubkey", .invalidValue),
    RejectionCase(
      "key pubkey 63 digits", set: "push.keys[0].pubkey", to: "\"\(hexA.dropLast())\"", "push.keys[0].pubkey",
      .invalidValue),
    RejectionCase(
      "key pubkey npub", set: "push.keys[0].pubkey",
      to: "\"npub1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqs9nsy0\"", "push.keys[0].pubkey",
      .invalidValue),
    RejectionCase(
      "key current a string", set: "push.keys[1].current", to: "\"true\"", "push.keys[1].current", .wrongType),
    RejectionCase("key current 1", set: "push.keys[1].current", to: "1", "push.keys[1].current", .wrongType),
    RejectionCase(
      "key retiring null", set: "push.keys[0].retiring", to: "null", "push.keys[0].retiring", .wrongType),
    RejectionCase("no current key", set: "push.keys[1].current", to: "false", "push.keys", .invalidValue),
    RejectionCase("two current keys", set: "push.keys[0].current", to: "true", "push.keys", .invalidValue),
    RejectionCase(
      "current key id over max_string_len", set: "push.keys[1].id",
      to: "\"\(String(repeating: "k", count: 65))\"", "push.keys[1].id", .invalidValue),
    // app_profiles
    RejectionCase("app_profiles missing", set: "push.app_profiles", to: nil, "push.app_profiles", .missing),
    RejectionCase(
      "app_profiles a string", set: "push.app_profiles", to: "\"apns\"", "push.app_profiles", .wrongType),
    RejectionCase(
      "app_profiles empty", set: "push.app_profiles", to: "[]", "push.app_profiles", .invalidValue),
    RejectionCase(
      "app profile an array", set: "push.app_profiles[0]", to: "[]", "push.app_profiles[0]", .wrongType),
    RejectionCase(
      "app profile extra member", set: "push.app_profiles[1].topic", to: "\"x\"",
      "push.app_profiles[1].topic", .unknownField),
    RejectionCase(
      "app profile id missing", set: "push.app_profiles[0].id", to: nil, "push.app_profiles[0].id", .missing),
    RejectionCase(
      "app profile transport missing", set: "push.app_profiles[1].transport", to: nil,
      "push.app_profiles[1].transport", .missing),
    RejectionCase(
      "app profile id null", set: "push.app_profiles[0].id", to: "null", "push.app_profiles[0].id", .wrongType
    ),
    RejectionCase(
      "app profile transport empty", set: "push.app_profiles[0].transport", to: "\"\"",
      "push.app_profiles[0].transport", .invalidValue),
    RejectionCase(
      "app profile id repeated", set: "push.app_profiles[1].id", to: "\"com.example.chat\"",
      "push.app_profiles[1].id", .duplicate),
    // push_kinds
    RejectionCase("push_kinds missing", set: "push.push_kinds", to: nil, "push.push_kinds", .missing),
    RejectionCase("push_kinds an object", set: "push.push_kinds", to: "{}", "push.push_kinds", .wrongType),
    RejectionCase("push_kinds empty", set: "push.push_kinds", to: "[]", "push.push_kinds", .invalidValue),
    RejectionCase("push kind 9.0", set: "push.push_kinds[0]", to: "9.0", "push.push_kinds[0]", .wrongType),
    RejectionCase("push kind 1e1", set: "push.push_kinds[4]", to: "1e1", "push.push_kinds[4]", .wrongType),
    RejectionCase(
      "push kind \"9\"", set: "push.push_kinds[0]", to: "\"9\"", "push.push_kinds[0]", .wrongType),
    RejectionCase("push kind true", set: "push.push_kinds[1]", to: "true", "push.push_kinds[1]", .wrongType),
    RejectionCase(
      "push kind negative", set: "push.push_kinds[4]", to: "-1", "push.push_kinds[4]", .invalidValue),
    RejectionCase(
      "push_kinds without 45003", set: "push.push_kinds", to: "[9,40002,45001]", "push.push_kinds",
      .invalidValue),
    RejectionCase(
      "push_kinds without 9", set: "push.push_kinds", to: "[40002,45001,45003]", "push.push_kinds",
      .invalidValue),
    // urgent_kinds
    RejectionCase(
      "urgent_kinds a string", set: "push.urgent_kinds", to: "\"45003\"", "push.urgent_kinds", .wrongType),
    RejectionCase("urgent_kinds null", set: "push.urgent_kinds", to: "null", "push.urgent_kinds", .wrongType),
    RejectionCase(
      "urgent kind not pushed", set: "push.urgent_kinds", to: "[45003,1]", "push.urgent_kinds[1]",
      .invalidValue),
    RejectionCase(
      "urgent kind a float", set: "push.urgent_kinds", to: "[45003.0]", "push.urgent_kinds[0]", .wrongType),
    // h_grammar
    RejectionCase("h_grammar missing", set: "push.h_grammar", to: nil, "push.h_grammar", .missing),
    RejectionCase("h_grammar a number", set: "push.h_grammar", to: "4", "push.h_grammar", .wrongType),
    RejectionCase(
      "h_grammar other grammar", set: "push.h_grammar", to: "\"uuid-v4\"", "push.h_grammar", .invalidValue),
    RejectionCase(
      "h_grammar upper-case", set: "push.h_grammar", to: "\"UUID-V4-LOWERCASE\"", "push.h_grammar",
      .invalidValue),
    // class_support
    RejectionCase(
      "class_support missing", set: "push.class_support", to: nil, "push.class_support", .missing),
    RejectionCase(
      "class_support an array", set: "push.class_support", to: "[\"default\"]", "push.class_support",
      .wrongType),
    RejectionCase(
      "class_support without apns", set: "push.class_support.apns", to: nil, "push.class_support.apns",
      .missing),
    RejectionCase(
      "apns classes a string", set: "push.class_support.apns", to: "\"default\"", "push.class_support.apns",
      .wrongType),
    RejectionCase(
      "apns classes empty", set: "push.class_support.apns", to: "[]", "push.class_support.apns", .invalidValue
    ),
    RejectionCase(
      "apns classes without default", set: "push.class_support.apns", to: "[\"silent\"]",
      "push.class_support.apns", .invalidValue),
    RejectionCase(
      "apns class a number", set: "push.class_support.apns", to: "[\"default\",1]",
      "push.class_support.apns[1]", .wrongType),
    RejectionCase(
      "apns class empty", set: "push.class_support.apns", to: "[\"default\",\"\"]",
      "push.class_support.apns[1]", .invalidValue),
    RejectionCase(
      "apns class unknown", set: "push.class_support.apns", to: "[\"critical\",\"default\"]",
      "push.class_support.apns[0]", .invalidValue),
    // limitation
    RejectionCase("limitation missing", set: "push.limitation", to: nil, "push.limitation", .missing),
    RejectionCase("limitation an array", set: "push.limitation", to: "[]", "push.limitation", .wrongType),
    RejectionCase(
      "limitation extra member", set: "push.limitation.max_events", to: "1", "push.limitation.max_events",
      .unknownField),
    RejectionCase(
      "limitation member missing", set: "push.limitation.max_ignore", to: nil, "push.limitation.max_ignore",
      .missing),
    RejectionCase(
      "limit a boolean", set: "push.limitation.max_ignore", to: "true", "push.limitation.max_ignore",
      .wrongType),
    RejectionCase(
      "limit a float", set: "push.limitation.max_kinds", to: "16.0", "push.limitation.max_kinds", .wrongType),
    RejectionCase(
      "limit a string", set: "push.limitation.max_h", to: "\"64\"", "push.limitation.max_h", .wrongType),
    RejectionCase(
      "limit null", set: "push.limitation.max_content_len", to: "null", "push.limitation.max_content_len",
      .wrongType),
    RejectionCase(
      "limit zero", set: "push.limitation.max_authors", to: "0", "push.limitation.max_authors", .invalidValue),
    RejectionCase(
      "limit negative", set: "push.limitation.max_endpoint_len", to: "-5", "push.limitation.max_endpoint_len",
      .invalidValue),
    RejectionCase(
      "max_lease_ttl over 30 days", set: "push.limitation.max_lease_ttl", to: "2592001",
      "push.limitation.max_lease_ttl", .invalidValue),
    // Duplicate member names reported by the reader
    RejectionCase(
      "duplicate push member", replacing: "\"origin\":", with: "\"origin\":\"wss://a.example\",\"origin\":",
      "push.origin", .duplicate),
    RejectionCase(
      "duplicate key member", replacing: "\"current\":true", with: "\"current\":true,\"current\":false",
      "push.keys[1].current", .duplicate),
    RejectionCase(
      "duplicate limit", replacing: "\"max_h\":64", with: "\"max_h\":64,\"max_h\":65",
      "push.limitation.max_h", .duplicate),
    RejectionCase(
      "duplicate top-level member", replacing: "\"name\":", with: "\"name\":\"a\",\"name\":", "name",
      .duplicate),
    // The empty name is written `""` in the path (found by the descriptor fuzzer).
    RejectionCase(
      "duplicate empty top-level name", replacing: "\"name\":", with: "\"\":1,\"\":2,\"name\":", "\"\"",
      .duplicate),
    RejectionCase(
      "duplicate empty name in push", replacing: "\"origin\":", with: "\"\":1,\"\":2,\"origin\":",
      "push.\"\"", .duplicate),
  ]

  @Test(arguments: cases)
  func rejectsDocumentNamingFieldAndCode(_ rejection: RejectionCase) throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(bytes: rejection.bytes)
    }
    #expect(error.field == rejection.field)
    #expect(error.code == rejection.code)
    #expect(!error.message.isEmpty)
  }

  @Test func coversAtLeastSixtyCases() {
    #expect(Self.cases.count >= 60)
    #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
  }

  @Test func rejectsAnAbsentRequiredAppProfile() throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(
        object: TestSupport.document,
        requiredAppProfile: PushAppProfile(id: "org.other.app", transport: "apns"))
    }
    #expect(error == PushDescriptorError(code: .invalidValue, field: "push.app_profiles", message: ""))
  }

  @Test func rejectsARequiredAppProfileOnAnotherTransport() throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(
        object: TestSupport.document,
        requiredAppProfile: PushAppProfile(id: "com.example.chat", transport: "fcm"))
    }
    #expect(error.field == "push.app_profiles")
    #expect(error.code == .invalidValue)
  }

  @Test func acceptsTheRequiredAppProfileWithItsTransport() throws {
    let document = try RelayDocument(
      object: TestSupport.document,
      requiredAppProfile: PushAppProfile(id: "com.example.droid", transport: "fcm"))
    #expect(document.push.appProfiles.map(\.id) == ["com.example.chat", "com.example.droid"])
  }

  @Test func rejectsANipPLDocumentWhenOnlyBuzzPushV1IsAccepted() throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(object: TestSupport.document, protocols: [.buzzPushV1])
    }
    #expect(error.field == "supported_extensions")
    #expect(error.code == .notAdvertised)
    #expect(error.message == "supported_extensions does not list \"buzz-push-v1\"")
  }

  @Test func acceptsANipPLDocumentWhenOnlyNipPLIsAccepted() throws {
    let document = try RelayDocument(object: TestSupport.document, protocols: [.nipPL])
    #expect(document.push == TestSupport.descriptor)
    #expect(document.push.pushProtocol == .nipPL)
  }
}
