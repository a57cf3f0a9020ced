import NostrJSON
import PushDescriptor
import Testing

/// The `buzz-push-v1` generation: its advertisement, its exact `push` member
/// set, and the descriptor it parses to, mirroring the `nip-pl` suites.
@Suite struct BuzzPushV1DescriptorTests {
  /// The v1 sample document with future metadata around it and `path` set to `value` (nil removes).
  static func document(setting path: String, to value: JSONValue?) -> [UInt8] {
    var object = TestSupport.documentV1
    object["release_channel"] = .string("nightly")
    object["software_commit_count"] = .null
    return TestSupport.bytes(JSONPath.updating(.object(object), at: path, to: value))
  }

  static let requiredPaths: [String] =
    ["supported_extensions", "push"]
    + PushProtocol.buzzPushV1.requiredMemberNames.map { "push.\($0)" }
    + PushLimitation.memberNames.map { "push.limitation.\($0)" }
    + ["push.keys[1].id", "push.keys[1].pubkey", "push.class_support.apns"]

  @Test func listsExactlyTheSixV1Members() {
    #expect(
      PushProtocol.buzzPushV1.requiredMemberNames == [
        "origin", "keys", "push_kinds", "h_grammar", "class_support", "limitation",
      ])
    #expect(Self.requiredPaths.count == 2 + 6 + 12 + 3)
  }

  @Test(arguments: requiredPaths)
  func rejectsMissingMember(_ path: String) throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(bytes: Self.document(setting: path, to: nil))
    }
    #expect(error.field == path)
    #expect(error.code == .missing)
  }

  @Test(arguments: requiredPaths)
  func rejectsMemberSetToFalse(_ path: String) throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(bytes: Self.document(setting: path, to: .bool(false)))
    }
    #expect(error.field == path)
    #expect(error.code == .wrongType)
  }

  @Test(arguments: ["app_profiles", "urgent_kinds", "read_state_snapshot"])
  func rejectsAMemberV1DoesNotDefineAsUnknown(_ member: String) throws {
    let value = try JSONReader().read(#"[{"id":"com.example.chat","transport":"apns"}]"#)
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(bytes: Self.document(setting: "push.\(member)", to: value))
    }
    #expect(error.field == "push.\(member)")
    #expect(error.code == .unknownField)
  }

  @Test(arguments: [
    #"["nip-pl","buzz-push-v1"]"#, #"["buzz-push-v1","x","nip-pl"]"#, #"["nip-pl","nip-pl","buzz-push-v1"]"#,
  ])
  func rejectsBothGenerationsAdvertised(_ extensions: String) throws {
    let bytes = Self.document(setting: "supported_extensions", to: try JSONReader().read(extensions))
    for protocols: Set<PushProtocol> in [[.nipPL, .buzzPushV1], [.nipPL], [.buzzPushV1]] {
      let error = try #require(throws: PushDescriptorError.self) {
        try RelayDocument(bytes: bytes, protocols: protocols)
      }
      #expect(error.field == "supported_extensions")
      #expect(error.code == .invalidValue)
      #expect(error.message == "both nip-pl and buzz-push-v1 advertised")
    }
  }

  @Test func readsNipPLAloneAsNipPLNotV1() throws {
    // A v1 push object under ["nip-pl"] is read as nip-pl, which needs app_profiles.
    let bytes = Self.document(setting: "supported_extensions", to: .array([.string("nip-pl")]))
    let error = try #require(throws: PushDescriptorError.self) { try RelayDocument(bytes: bytes) }
    #expect(error.field == "push.app_profiles")
    #expect(error.code == .missing)

    let onlyV1 = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(object: TestSupport.document, protocols: [.buzzPushV1])
    }
    #expect(onlyV1.code == .notAdvertised)
  }

  @Test(arguments: [#"["nip-xx"]"#, #"["BUZZ-PUSH-V1"]"#, #"["buzz-push-v2","nip-pl-2"]"#])
  func rejectsNeitherGenerationAsNotAdvertised(_ extensions: String) throws {
    let bytes = Self.document(setting: "supported_extensions", to: try JSONReader().read(extensions))
    let error = try #require(throws: PushDescriptorError.self) { try RelayDocument(bytes: bytes) }
    #expect(error.field == "supported_extensions")
    #expect(error.code == .notAdvertised)
  }

  @Test func rejectsAV1DocumentWhenOnlyNipPLIsAccepted() throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(object: TestSupport.documentV1, protocols: [.nipPL])
    }
    #expect(error.field == "supported_extensions")
    #expect(error.code == .notAdvertised)
    #expect(error.message == "supported_extensions does not list \"nip-pl\"")
  }

  @Test func acceptsNothingWhenNoGenerationIsAccepted() throws {
    for object in [TestSupport.document, TestSupport.documentV1] {
      let error = try #require(throws: PushDescriptorError.self) {
        try RelayDocument(object: object, protocols: [])
      }
      #expect(error.field == "supported_extensions")
      #expect(error.code == .notAdvertised)
    }
  }

  @Test func parsesTheV1DescriptorAndSaysItsProtocol() throws {
    let document = try RelayDocument(object: TestSupport.documentV1)
    let push = document.push
    #expect(push.pushProtocol == .buzzPushV1)
    #expect(push.appProfiles.isEmpty)
    #expect(push.urgentKinds == nil)
    #expect(push.origin == "wss://push.example")
    #expect(push.currentKey?.id == "k2")
    #expect(push.pushKinds == [9, 40002, 45001, 45003, 1111])
    #expect(push.classSupport.apns == [.silent, .default, .urgent])
    #expect(push.classSupport.otherTransports.keys == ["fcm"])
    #expect(push.classSupportTransports == ["apns", "fcm"])
    #expect(push == TestSupport.descriptorV1)
    #expect(document.ignoredTopLevelKeys == TestSupport.futureKeys)
    #expect(try RelayDocument(object: TestSupport.document).push.pushProtocol == .nipPL)
  }

  @Test func readsTheSameV1DescriptorWithAndWithoutFutureMetadata() throws {
    var bare = TestSupport.documentV1
    for key in TestSupport.futureKeys { bare[key] = nil }
    #expect(try RelayDocument(object: bare).push == RelayDocument(object: TestSupport.documentV1).push)
  }

  @Test func acceptsV1AmongOtherExtensions() throws {
    let bytes = Self.document(
      setting: "supported_extensions", to: try JSONReader().read(#"["nip-xx","buzz-push-v1"]"#))
    #expect(try RelayDocument(bytes: bytes, protocols: [.buzzPushV1]).push == TestSupport.descriptorV1)
  }

  @Test func ignoresARequiredAppProfileForV1() throws {
    let document = try RelayDocument(
      object: TestSupport.documentV1,
      requiredAppProfile: PushAppProfile(id: "org.other.app", transport: "fcm"))
    #expect(document.push == TestSupport.descriptorV1)
  }

  @Test func encodesTheV1PushObjectAsGiven() throws {
    #expect(TestSupport.descriptorV1.jsonValue == TestSupport.pushV1)
    var descriptor = TestSupport.descriptorV1
    descriptor.urgentKinds = [9]
    descriptor.appProfiles = [PushAppProfile(id: "x", transport: "apns")]
    let keys = try #require(descriptor.jsonValue.objectValue?.keys)
    #expect(keys == PushProtocol.buzzPushV1.memberNames)
  }

  @Test func servesAV1DocumentListingOnlyV1() throws {
    let information = RelayInformation(
      lenient: JSONObject([
        "name": .string("relay"),
        "supported_extensions": .array([.string("nip-pl"), .string("nip-xx")]),
      ]))
    let served = RelayDocument(information: information, push: TestSupport.descriptorV1)
    #expect(
      served.information.object["supported_extensions"]
        == .array([.string("nip-xx"), .string("buzz-push-v1")]))
    let reread = try RelayDocument(bytes: served.jsonBytes())
    #expect(reread.push == TestSupport.descriptorV1)
    #expect(reread == served)
  }
}
