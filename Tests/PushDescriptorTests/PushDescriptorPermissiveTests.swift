import NostrJSON
import PushDescriptor
import Testing

/// One document the strict part must accept, with a check of what it read.
struct PermissiveCase: Sendable, CustomTestStringConvertible {
  var name: String
  var document: JSONObject
  var check: @Sendable (RelayDocument) -> Bool

  var testDescription: String { name }

  /// The sample document with the value at `path` replaced by the JSON `text` (nil removes it).
  init(_ name: String, set path: String, to text: String?, check: @escaping @Sendable (RelayDocument) -> Bool)
  {
    let value = text.map { try! JSONReader().read($0) }
    let updated = JSONPath.updating(.object(TestSupport.document), at: path, to: value)
    self.init(name, document: updated.objectValue!, check: check)
  }

  init(_ name: String, document: JSONObject, check: @escaping @Sendable (RelayDocument) -> Bool) {
    self.name = name
    self.document = document
    self.check = check
  }

  /// The sample descriptor, unchanged.
  static let sameDescriptor: @Sendable (RelayDocument) -> Bool = { $0.push == TestSupport.descriptor }
}

@Suite struct PushDescriptorPermissiveTests {
  static func reordered(_ value: JSONValue) -> JSONValue {
    guard case .object(let object) = value else { return value }
    return .object(
      JSONObject(object.members.reversed().map { JSONMember(key: $0.key, value: reordered($0.value)) }))
  }

  static let cases: [PermissiveCase] = [
    PermissiveCase(
      "unknown top-level object", set: "read_state_snapshot", to: "{\"channels\":[1,2],\"v\":{}}"
    ) {
      $0.push == TestSupport.descriptor && $0.ignoredTopLevelKeys.contains("read_state_snapshot")
    },
    PermissiveCase("unknown top-level array", set: "artifacts", to: "[{\"url\":\"x\"},1,null]") {
      $0.push == TestSupport.descriptor && $0.ignoredTopLevelKeys.contains("artifacts")
    },
    PermissiveCase("unknown top-level string", set: "software_commit", to: "\"0123abc\"") {
      $0.ignoredTopLevelKeys.last == "software_commit" && $0.push == TestSupport.descriptor
    },
    PermissiveCase("unknown top-level float", set: "build_time", to: "1.5e9") {
      $0.information[member: "build_time"] == .float(1.5e9) && $0.push == TestSupport.descriptor
    },
    PermissiveCase("unknown top-level null", set: "software_commit_count", to: "null") {
      $0.information[member: "software_commit_count"] == .null && $0.push == TestSupport.descriptor
    },
    PermissiveCase("unknown top-level boolean", set: "negentropy", to: "true") {
      $0.ignoredTopLevelKeys.last == "negentropy" && $0.push == TestSupport.descriptor
    },
    PermissiveCase(
      "known members of the wrong type",
      document: {
        var object = TestSupport.document
        object["name"] = .integer(5)
        object["supported_nips"] = .string("all")
        object["limitation"] = .array([])
        object["pubkey"] = .string("not a key")
        object["fees"] = .string("free")
        return object
      }()
    ) {
      $0.information.name == nil && $0.information.supportedNIPs == nil && $0.information.limitation == nil
        && $0.information.pubkey == nil && $0.information.fees == nil && $0.push == TestSupport.descriptor
    },
    PermissiveCase(
      "push members in reverse order", set: "push", to: JSONWriter.string(reordered(TestSupport.push))
    ) {
      $0.push == TestSupport.descriptor
    },
    PermissiveCase("urgent_kinds absent", set: "push.urgent_kinds", to: nil) { $0.push.urgentKinds == nil },
    PermissiveCase("urgent_kinds empty", set: "push.urgent_kinds", to: "[]") { $0.push.urgentKinds == [] },
    PermissiveCase(
      "extra class_support transports", set: "push.class_support.webpush", to: "{\"any\":[1,null]}"
    ) {
      $0.push.classSupport.otherTransports.keys == ["fcm", "webpush"]
        && $0.push.classSupport.apns == [.silent, .default, .urgent]
    },
    PermissiveCase("other transports of any type", set: "push.class_support.fcm", to: "7") {
      $0.push.classSupport.otherTransports["fcm"] == .integer(7)
    },
    PermissiveCase(
      "every apns class", set: "push.class_support.apns",
      to: "[\"time_sensitive\",\"urgent\",\"silent\",\"default\"]"
    ) {
      $0.push.classSupport.apns == [.timeSensitive, .urgent, .silent, .default]
    },
    PermissiveCase(
      "more extensions advertised", set: "supported_extensions", to: "[\"nip-xx\",\"nip-pl\",\"x\"]"
    ) {
      $0.push == TestSupport.descriptor
    },
    PermissiveCase("origin with port 443", set: "push.origin", to: "\"wss://push.example:443\"") {
      $0.push.origin == "wss://push.example:443"
    },
    PermissiveCase("origin ws on IPv4 with port", set: "push.origin", to: "\"ws://127.0.0.1:7777\"") {
      $0.push.origin == "ws://127.0.0.1:7777"
    },
    PermissiveCase("origin on IPv6", set: "push.origin", to: "\"ws://[::1]:8080\"") {
      $0.push.origin == "ws://[::1]:8080"
    },
    PermissiveCase(
      "key without optional members", set: "push.keys[0]",
      to: "{\"pubkey\":\"\(TestSupport.hexA)\",\"id\":\"old\"}"
    ) {
      $0.push.keys[0] == PushKey(id: "old", pubkey: TestSupport.hexA) && $0.push.currentKey?.id == "k2"
    },
    PermissiveCase("current key listed with current false siblings", set: "push.keys[0].current", to: "false")
    {
      $0.push.keys[0].current == false && $0.push.currentKey?.id == "k2"
    },
    PermissiveCase(
      "push_kinds superset with large kinds", set: "push.push_kinds", to: "[45003,45001,40002,9,30023,65535]"
    ) {
      $0.push.pushKinds == [45003, 45001, 40002, 9, 30023, 65535]
    },
    PermissiveCase("limits at their bounds", set: "push.limitation.max_lease_ttl", to: "2592000") {
      $0.push.limitation.maxLeaseTTL == 2_592_000
    },
    PermissiveCase("limits of one", set: "push.limitation.max_ignore", to: "1") {
      $0.push.limitation.maxIgnore == 1
    },
  ]

  @Test(arguments: cases)
  func acceptsDocument(_ accepted: PermissiveCase) throws {
    let document = try RelayDocument(bytes: TestSupport.bytes(accepted.document))
    #expect(accepted.check(document))
  }

  @Test func coversAtLeastTwelveCases() {
    #expect(Self.cases.count >= 12)
  }

  @Test func listsIgnoredTopLevelKeysInDocumentOrder() throws {
    let document = try RelayDocument(object: TestSupport.document)
    #expect(document.ignoredTopLevelKeys == TestSupport.futureKeys)
  }

  @Test func readsTheSameDescriptorWithAndWithoutFutureMetadata() throws {
    var bare = TestSupport.document
    for key in TestSupport.futureKeys { bare[key] = nil }
    let withMetadata = try RelayDocument(object: TestSupport.document)
    let without = try RelayDocument(object: bare)
    #expect(withMetadata.push == without.push)
    #expect(without.ignoredTopLevelKeys.isEmpty)
  }

  @Test func readsEveryDescriptorMember() throws {
    let push = try PushDescriptor(strictPush: TestSupport.push)
    #expect(push.origin == "wss://push.example")
    #expect(
      push.keys == [
        PushKey(id: "k1", pubkey: TestSupport.hexA, retiring: true),
        PushKey(id: "k2", pubkey: TestSupport.hexB, current: true),
      ])
    #expect(push.currentKey?.pubkey == TestSupport.hexB)
    #expect(
      push.appProfiles == [
        PushAppProfile(id: "com.example.chat", transport: "apns"),
        PushAppProfile(id: "com.example.droid", transport: "fcm"),
      ])
    #expect(push.pushKinds == [9, 40002, 45001, 45003, 1111])
    #expect(push.urgentKinds == [45003])
    #expect(push.hGrammar == "uuid-v4-lowercase")
    #expect(
      push.limitation
        == PushLimitation(
          maxLeaseTTL: 604800, maxLeasesPerPubkey: 8, maxSubscriptionsPerLease: 4, maxKinds: 16,
          maxAuthors: 256,
          maxH: 64, maxTagValues: 64, maxIgnore: 128, maxContentLen: 8192, maxPlaintextLen: 4096,
          maxEndpointLen: 512,
          maxStringLen: 64))
  }
}
