import Foundation
import NostrJSON
import PushDescriptor
import Testing

@Suite struct RelayInformationTests {
  static let validJSONFiles = TestSupport.nip11FileNames.filter { !$0.hasSuffix(".invalid-json.txt") }
  static let invalidJSONFiles = TestSupport.nip11FileNames.filter { $0.hasSuffix(".invalid-json.txt") }

  static func vector(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: TestSupport.nip11Folder.appendingPathComponent(name)))
  }

  @Test func findsTheVectors() {
    #expect(Self.validJSONFiles.count >= 60)
  }

  @Test(arguments: validJSONFiles)
  func readsVectorLeniently(_ name: String) throws {
    let bytes = try Self.vector(name)
    let information = try RelayInformation(lenientJSON: bytes)
    let object = try #require(try JSONReader().read(bytes).objectValue)
    #expect(information.object == object)
    let expectedIgnored = object.keys.filter {
      !RelayInformation.knownMembers.contains($0) && !RelayInformation.pushMembers.contains($0)
    }
    #expect(information.ignoredTopLevelKeys == expectedIgnored)
    #expect(information.name == object["name"]?.stringValue)
  }

  /// The sample holds no `.invalid-json.txt` today; an inline trailing-comma document stands in
  /// for nostr-sdk-ios's `relay_info.json`, and any such file that is added is checked as well.
  @Test func refusesVectorsThatAreNotJSON() throws {
    var inputs: [(String, [UInt8])] = [
      ("trailing comma", Array(#"{"name":"relay","supported_nips":[1,2],}"#.utf8))
    ]
    for name in Self.invalidJSONFiles { inputs.append((name, try Self.vector(name))) }
    for (name, bytes) in inputs {
      let error = try #require(throws: PushDescriptorError.self, "\(name)") {
        try RelayInformation(lenientJSON: bytes)
      }
      #expect(error.field == "document", "\(name)")
      #expect(error.code == .wrongType, "\(name)")
    }
  }

  @Test(arguments: validJSONFiles)
  func readsGraftedDescriptorAsIfAlone(_ name: String) throws {
    var object = try #require(try JSONReader().read(try Self.vector(name)).objectValue)
    object["supported_extensions"] = .array([.string("nip-pl")])
    object["push"] = TestSupport.push
    let document = try RelayDocument(bytes: TestSupport.bytes(object))
    #expect(document.push == (try PushDescriptor(strictPush: TestSupport.push)))
    #expect(
      document.ignoredTopLevelKeys
        == (try RelayInformation(lenientJSON: try Self.vector(name))).ignoredTopLevelKeys)
  }

  @Test func readsSupportedNIPsFromMixedArrays() throws {
    let information = try RelayInformation(
      lenientJSON: Array(#"{"supported_nips":[1,"11","x",4.5,true,-2,null,{"n":1},"09",42]}"#.utf8))
    #expect(information.supportedNIPs == [1, 11, 9, 42])
  }

  @Test(arguments: [
    (#"{"supported_nips":11}"#, [11] as [Int]?),
    (#"{"supported_nips":null}"#, nil),
    (#"{"supported_nips":1.5}"#, nil),
    (#"{"supported_nips":"1"}"#, nil),
    (#"{"supported_nips":{"nip":1}}"#, nil),
    (#"{"supported_nips":[]}"#, []),
    (#"{"name":"x"}"#, nil),
  ])
  func readsSupportedNIPsShapes(_ text: String, _ expected: [Int]?) throws {
    #expect(try RelayInformation(lenientJSON: Array(text.utf8)).supportedNIPs == expected)
  }

  @Test func readsTheAmethystMalformedArrayVector() throws {
    let information = try RelayInformation(
      lenientJSON: try Self.vector("amethyst-fixture-parse-malformed-array-with-invalid-elements.json"))
    #expect(information.supportedNIPs == [1, 3, 11])
    #expect(information.name == "test relay")
  }

  @Test func readsEveryKnownMember() throws {
    let text = """
      {"name":"n","description":"d","banner":"b","icon":"i","pubkey":"\(TestSupport.hexA.uppercased())",\
      "self":"\(TestSupport.hexB)","contact":"c","supported_nips":[1],"software":"s","version":"v",\
      "limitation":{"max_limit":5},"retention":[{"kinds":[0],"time":null}],"fees":{"admission":[]},\
      "relay_countries":["DE",1,"CH"],"language_tags":["en"],"tags":["sfw-only"],"posting_policy":"p",\
      "payments_url":"u","terms_of_service":"t"}
      """
    let information = try RelayInformation(lenientJSON: Array(text.utf8))
    #expect(information.name == "n")
    #expect(information.description == "d")
    #expect(information.banner == "b")
    #expect(information.icon == "i")
    #expect(information.pubkey == TestSupport.hexA)
    #expect(information.selfPubkey == TestSupport.hexB)
    #expect(information.contact == "c")
    #expect(information.supportedNIPs == [1])
    #expect(information.software == "s")
    #expect(information.version == "v")
    #expect(information.limitation?["max_limit"] == .integer(5))
    #expect(information.retention?.count == 1)
    #expect(information.fees?.keys == ["admission"])
    #expect(information.relayCountries == ["DE", "CH"])
    #expect(information.languageTags == ["en"])
    #expect(information.tags == ["sfw-only"])
    #expect(information.postingPolicy == "p")
    #expect(information.paymentsURL == "u")
    #expect(information.ignoredTopLevelKeys == ["terms_of_service"])
    #expect(information[member: "terms_of_service"] == .string("t"))
  }

  @Test(arguments: ["", "xyz", String(repeating: "g", count: 64), String(TestSupport.hexA.dropLast())])
  func dropsPubkeyThatIsNotAKey(_ pubkey: String) throws {
    let information = RelayInformation(
      lenient: JSONObject(["pubkey": .string(pubkey), "self": .string(pubkey)]))
    #expect(information.pubkey == nil)
    #expect(information.selfPubkey == nil)
  }

  @Test func refusesARootThatIsNotAnObject() throws {
    let error = try #require(throws: PushDescriptorError.self) {
      try RelayInformation(lenientJSON: Array("[1,2]".utf8))
    }
    #expect(error == PushDescriptorError(code: .wrongType, field: "document", message: ""))
  }
}

@Suite struct RelayPublicKeyTests {
  /// The key of the compact-display example (`npub14f8…9nsy`), its npub and its note.
  static let hex = "aa4fc8665f5696e33db7e1a572e3b0f5b3d615837b0f362dcb1c8068b098c7b4"
  static let npub = "npub14f8usejl26twx0dhuxjh9cas7keav9vr0v8nvtwtrjqx3vycc76qqh9nsy"
  static let note = "note14f8usejl26twx0dhuxjh9cas7keav9vr0v8nvtwtrjqx3vycc76q3axwfv"

  @Test func readsNpubKeysAsHex() throws {
    let information = RelayInformation(
      lenient: JSONObject(["pubkey": .string(Self.npub), "self": .string(Self.npub.uppercased())]))
    #expect(information.pubkey == Self.hex)
    #expect(information.selfPubkey == Self.hex)
  }

  @Test func readsUpperCaseHexAsLowerCase() {
    let information = RelayInformation(lenient: JSONObject(["self": .string(Self.hex.uppercased())]))
    #expect(information.selfPubkey == Self.hex)
  }

  @Test func dropsOtherBech32Entities() {
    let broken = String(Self.npub.dropLast()) + "q"
    for text in [Self.note, "nostr:" + Self.npub, broken, Self.npub + "q", "npub1"] {
      let information = RelayInformation(lenient: JSONObject(["pubkey": .string(text)]))
      #expect(information.pubkey == nil, "\(text)")
    }
  }
}
