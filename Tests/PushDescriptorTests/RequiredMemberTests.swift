import NostrJSON
import PushDescriptor
import Testing

/// For each required member, "missing" and `false` are both rejected while unrelated future
/// top-level metadata is present.
@Suite struct RequiredMemberTests {
  static let requiredPaths: [String] =
    ["supported_extensions", "push"]
    + PushProtocol.nipPL.requiredMemberNames.map { "push.\($0)" }
    + PushLimitation.memberNames.map { "push.limitation.\($0)" }
    + [
      "push.keys[1].id", "push.keys[1].pubkey", "push.app_profiles[0].id", "push.app_profiles[0].transport",
      "push.class_support.apns",
    ]

  static func document(setting path: String, to value: JSONValue?) -> [UInt8] {
    var object = TestSupport.document
    object["release_channel"] = .string("nightly")
    object["software_commit_count"] = .null
    return TestSupport.bytes(JSONPath.updating(.object(object), at: path, to: value))
  }

  @Test(arguments: requiredPaths)
  func rejectsMissingMember(_ path: String) throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayDocument(bytes: Self.document(setting: path, to: nil))
    }
    #expect(error.field == path)
    #expect(error.code == .missing)
  }

  @Test(arguments: requiredPaths + ["push.urgent_kinds"])
  func rejectsMemberSetToFalse(_ path: String) throws {
    let bytes = Self.document(setting: path, to: .bool(false))
    let error = try #require(throws: PushDescriptorError.self) { try RelayDocument(bytes: bytes) }
    #expect(error.field == path)
    #expect(error.code == .wrongType)
  }

  @Test func acceptsRetiringFalse() throws {
    let document = try RelayDocument(bytes: Self.document(setting: "push.keys[0].retiring", to: .bool(false)))
    #expect(document.push.keys[0].retiring == false)
    #expect(document.ignoredTopLevelKeys.contains("release_channel"))
  }
}
