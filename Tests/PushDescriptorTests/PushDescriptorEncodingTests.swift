import NostrJSON
import NostrPushTestSupport
import PushDescriptor
import Testing

@Suite struct PushDescriptorEncodingTests {
  @Test func encodesTheSamplePushObjectAsGiven() throws {
    #expect(TestSupport.descriptor.jsonValue == TestSupport.push)
  }

  @Test func encodesTheFixtureDocumentBackToAnEqualDocument() throws {
    let original = try RelayDocument(
      bytes: try TestSupport.fixtureBytes("Fixtures/nip11/push-descriptor.json"))
    let reread = try RelayDocument(bytes: original.jsonBytes())
    #expect(reread == original)
    #expect(
      reread.ignoredTopLevelKeys == ["read_state_snapshot", "software_commit", "software_commit_count"])
  }

  @Test func buildsAServableDocumentFromInformationAndDescriptor() throws {
    let information = RelayInformation(
      lenient: JSONObject([
        "name": .string("relay"), "supported_extensions": .array([.string("nip-xx"), .integer(3)]),
        "build_time": .integer(7),
      ]))
    let served = RelayDocument(information: information, push: TestSupport.descriptor)
    #expect(
      served.information.object["supported_extensions"] == .array([.string("nip-xx"), .string("nip-pl")]))
    let reread = try RelayDocument(bytes: served.jsonBytes())
    #expect(reread == served)
    #expect(reread.push == TestSupport.descriptor)
    #expect(reread.information.name == "relay")
    #expect(reread.ignoredTopLevelKeys == ["build_time"])
  }

  @Test func omitsAbsentOptionalMembers() throws {
    var descriptor = TestSupport.descriptor
    descriptor.urgentKinds = nil
    descriptor.keys = [PushKey(id: "only", pubkey: TestSupport.hexA, current: true)]
    let object = try #require(descriptor.jsonValue.objectValue)
    #expect(object["urgent_kinds"] == nil)
    #expect(
      object["keys"]
        == .array([
          .object(
            JSONObject(["id": .string("only"), "pubkey": .string(TestSupport.hexA), "current": .bool(true)]))
        ]))
    #expect(try PushDescriptor(strictPush: descriptor.jsonValue) == descriptor)
  }

  @Test(arguments: 0..<8)
  func encodesRandomDescriptorsThatParseBackEqual(_ seed: Int) throws {
    var generator = SplitMix64(seed: 0x5EED_0000 + UInt64(seed))
    for _ in 0..<50 {
      let descriptor = RandomDescriptor.make(using: &generator)
      let reread = try PushDescriptor(strictPush: try JSONReader().read(descriptor.jsonBytes()))
      #expect(reread == descriptor)
      let served = RelayDocument(information: RelayInformation(lenient: JSONObject()), push: descriptor)
      #expect(try RelayDocument(bytes: served.jsonBytes()).push == descriptor)
    }
  }
}

/// Valid descriptors with random contents, so encoding is tested beyond hand-written samples.
enum RandomDescriptor {
  static func make(using generator: inout SplitMix64) -> PushDescriptor {
    let hosts = ["relay.example", "a.b.c", "127.0.0.1", "[::1]", "x-1.example", "push9.example"]
    var origin =
      (Bool.random(using: &generator) ? "wss://" : "ws://") + hosts.randomElement(using: &generator)!
    if Bool.random(using: &generator) { origin += ":\(Int.random(in: 1...65535, using: &generator))" }

    let keyCount = Int.random(in: 1...5, using: &generator)
    let currentIndex = Int.random(in: 0..<keyCount, using: &generator)
    let keys = (0..<keyCount).map { index in
      PushKey(
        id: "key-\(index)-\(text(using: &generator))", pubkey: hex(using: &generator),
        current: index == currentIndex ? true : optionalBool(false, using: &generator),
        retiring: optionalBool(Bool.random(using: &generator), using: &generator))
    }
    let profiles = (0..<Int.random(in: 1...4, using: &generator)).map { index in
      PushAppProfile(
        id: "app.\(index).\(text(using: &generator))",
        transport: ["apns", "fcm", "webpush"].randomElement(using: &generator)!)
    }
    var kinds = PushDescriptor.requiredPushKinds
    for _ in 0..<Int.random(in: 0...6, using: &generator) {
      kinds.append(Int.random(in: 0...65535, using: &generator))
    }
    kinds.shuffle(using: &generator)
    let urgent =
      Bool.random(using: &generator)
      ? Array(kinds.shuffled(using: &generator).prefix(Int.random(in: 0...3, using: &generator))) : nil
    var classes = PushClass.allCases.filter { $0 == .default || Bool.random(using: &generator) }
    classes.shuffle(using: &generator)
    var others = JSONObject()
    if Bool.random(using: &generator) { others["fcm"] = .array([.string("high"), .integer(3), .null]) }
    if Bool.random(using: &generator) { others["webpush"] = .object(JSONObject(["ttl": .float(1.25)])) }
    let limits = (0..<12).map { index in
      index == 0
        ? Int.random(in: 1...PushLimitation.maxLeaseTTLCeiling, using: &generator)
        : index == 11
          ? Int.random(in: 64...4096, using: &generator)
          : Int.random(in: 1...Int(Int32.max), using: &generator)
    }
    return PushDescriptor(
      origin: origin, keys: keys, appProfiles: profiles, pushKinds: kinds, urgentKinds: urgent,
      classSupport: PushClassSupport(apns: classes, otherTransports: others),
      limitation: PushLimitation(
        maxLeaseTTL: limits[0], maxLeasesPerPubkey: limits[1], maxSubscriptionsPerLease: limits[2],
        maxKinds: limits[3],
        maxAuthors: limits[4], maxH: limits[5], maxTagValues: limits[6], maxIgnore: limits[7],
        maxContentLen: limits[8],
        maxPlaintextLen: limits[9], maxEndpointLen: limits[10], maxStringLen: limits[11]))
  }

  private static func optionalBool(_ value: Bool, using generator: inout SplitMix64) -> Bool? {
    Bool.random(using: &generator) ? value : nil
  }

  private static func hex(using generator: inout SplitMix64) -> String {
    let digits = Array("0123456789abcdef")
    return String((0..<64).map { _ in digits[Int.random(in: 0..<16, using: &generator)] })
  }

  /// Short text with characters that need escaping or are outside ASCII.
  private static func text(using generator: inout SplitMix64) -> String {
    let pieces = ["a", "Z", "\"", "\\", "/", "\n", "\u{7F}", "é", "日", "🦩", "\u{0}", " "]
    return String(
      (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
        .joined())
  }
}
