import Bech32
import NostrPushTestSupport
import Testing

/// The entity shapes the round-trip test covers, one parameterized case each.
enum EntityShape: String, CaseIterable, Sendable {
  case npub, nsec, note, nprofile, nevent, naddr
}

/// Random entities from a seeded generator.
struct EntityGenerator {
  var random: SplitMix64

  /// Pieces of text that together cover one- to four-byte UTF-8 sequences.
  static let pieces = ["a", "z", "0", ".", "/", ":", "-", "é", "ß", "日本", "Ω", "🦩", "👩‍💻", " ", "\u{0}"]

  mutating func hex() -> String {
    let digits = Array("0123456789abcdef")
    return String((0..<64).map { _ in digits[Int(random.next() & 15)] })
  }

  mutating func text(maxPieces: Int) -> String {
    let count = Int.random(in: 0...maxPieces, using: &random)
    return (0..<count).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
  }

  mutating func relays() -> [String] {
    (0..<Int.random(in: 0...3, using: &random)).map { _ in "wss://" + text(maxPieces: 20) }
  }

  mutating func kind() -> Int { Int(UInt32.random(in: 0...UInt32.max, using: &random)) }

  mutating func entity(_ shape: EntityShape) -> NIP19Entity {
    switch shape {
    case .npub: .npub(pubkey: hex())
    case .nsec: .nsec(secretKey: hex())
    case .note: .note(id: hex())
    case .nprofile: .nprofile(pubkey: hex(), relays: relays())
    case .nevent:
      .nevent(
        id: hex(), relays: relays(), author: Bool.random(using: &random) ? hex() : nil,
        kind: Bool.random(using: &random) ? kind() : nil)
    case .naddr: .naddr(identifier: text(maxPieces: 12), pubkey: hex(), kind: kind(), relays: relays())
    }
  }
}

@Suite struct NIP19EntityTests {
  static let pubkey = "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d"

  @Test(arguments: EntityShape.allCases)
  func roundTripsRandomEntities(_ shape: EntityShape) throws {
    var generator = EntityGenerator(
      random: SplitMix64(seed: 0x4E49_5031_39 + UInt64(EntityShape.allCases.firstIndex(of: shape)!)))
    for _ in 0..<1_000 {
      let entity = generator.entity(shape)
      let text = try entity.encoded()
      #expect(text.hasPrefix(entity.prefix + "1"))
      #expect(text == text.lowercased())
      #expect(try NIP19Entity(decoding: text) == entity, "\(text)")
      #expect(try NIP19Entity(decoding: text.uppercased()) == entity, "\(text)")
      #expect(try NIP19Entity(decoding: "nostr:" + text) == entity, "\(text)")
    }
  }

  @Test func survivesRandomEditsOfValidStrings() throws {
    var generator = EntityGenerator(random: SplitMix64(seed: 0xF00D))
    let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l1QPZ\u{0} ".utf8) + [0xC3, 0xFF]
    var decodedCount = 0
    for round in 0..<1_200 {
      let shape = EntityShape.allCases[round % EntityShape.allCases.count]
      var characters = Array(try generator.entity(shape).encoded().utf8)
      for _ in 0...Int.random(in: 0...2, using: &generator.random) {
        let position = Int.random(in: 0..<characters.count, using: &generator.random)
        switch generator.random.next() % 3 {
        case 0: characters.remove(at: position)
        case 1: characters.insert(alphabet.randomElement(using: &generator.random)!, at: position)
        default: characters[position] = alphabet.randomElement(using: &generator.random)!
        }
      }
      let text = String(decoding: characters, as: UTF8.self)
      guard let entity = try? NIP19Entity(decoding: text) else { continue }
      decodedCount += 1
      #expect(try NIP19Entity(decoding: entity.encoded()) == entity, "\(text)")
    }
    // Edits that keep the string valid are rare (swapping an identical character, or none).
    #expect(decodedCount < 1_200)
  }

  @Test func decodesUpperCaseHexInputToLowerCase() throws {
    let text = try NIP19Entity.npub(pubkey: Self.pubkey.uppercased()).encoded()
    #expect(text == "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6")
    #expect(try NIP19Entity(decoding: text) == .npub(pubkey: Self.pubkey))
  }

  @Test(arguments: [
    (String(Self.pubkey.dropLast()), Bech32Error.Code.invalidLength),
    (Self.pubkey + "0", .invalidLength),
    ("+a" + Self.pubkey.dropFirst(2), .invalidCharacter),
    ("0x" + Self.pubkey.dropFirst(2), .invalidCharacter),
    ("", .invalidLength),
  ])
  func refusesBadHexWhenEncoding(_ hex: String, _ code: Bech32Error.Code) throws {
    let error = try #require(throws: Bech32Error.self) { try NIP19Entity.npub(pubkey: hex).encoded() }
    #expect(error.code == code)
    #expect(error.field == "pubkey")
    let authorError = try #require(throws: Bech32Error.self) {
      try NIP19Entity.nevent(id: Self.pubkey, relays: [], author: hex, kind: nil).encoded()
    }
    #expect(authorError.field == "author")
  }

  @Test func refusesARelayLongerThanATLVValue() throws {
    let relay = "wss://" + String(repeating: "r", count: 250)
    let error = try #require(throws: Bech32Error.self) {
      try NIP19Entity.nprofile(pubkey: Self.pubkey, relays: [relay]).encoded()
    }
    #expect(error.code == .invalidTLV)
    #expect(error.field == "relay")
    #expect(
      try NIP19Entity.nprofile(pubkey: Self.pubkey, relays: [String(relay.dropLast())]).encoded().count > 90)
  }

  @Test(arguments: [-1, Int(UInt32.max) + 1])
  func refusesKindsOutsideFourBytes(_ kind: Int) throws {
    let error = try #require(throws: Bech32Error.self) {
      try NIP19Entity.naddr(identifier: "x", pubkey: Self.pubkey, kind: kind, relays: []).encoded()
    }
    #expect(error.code == .invalidTLV)
    #expect(error.field == "kind")
  }

  @Test func refusesAnEntityLongerThan5000Characters() throws {
    let relays = [String](repeating: "wss://" + String(repeating: "r", count: 240), count: 13)
    let error = try #require(throws: Bech32Error.self) {
      try NIP19Entity.nprofile(pubkey: Self.pubkey, relays: relays).encoded()
    }
    #expect(error.code == .invalidLength)
    let fits = try NIP19Entity.nprofile(pubkey: Self.pubkey, relays: Array(relays.prefix(12))).encoded()
    #expect(fits.count > 4_000 && fits.count <= 5_000)
    #expect(
      try NIP19Entity(decoding: fits) == .nprofile(pubkey: Self.pubkey, relays: Array(relays.prefix(12))))
  }

  @Test func refusesToDecodeMoreThan5000Characters() throws {
    let text = try Bech32.encode(
      hrp: "npub", words: [UInt8](repeating: 0, count: 5_000), limit: Bech32.Limit(maxLength: 6_000))
    let error = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: text) }
    #expect(error.code == .invalidLength)
  }

  @Test(arguments: [
    ("npub", 31), ("npub", 33), ("nsec", 0), ("note", 64),
  ])
  func refusesBarePayloadsOfTheWrongSize(_ prefix: String, _ count: Int) throws {
    let text = try Bech32.encode(hrp: prefix, bytes: [UInt8](repeating: 1, count: count), limit: .nip19)
    let error = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: text) }
    #expect(error.code == .invalidLength)
  }

  @Test(arguments: ["nrelay", "ncryptsec", "nsecret", "lnbc", "bc"])
  func reportsUnknownPrefixesAfterTheChecksum(_ prefix: String) throws {
    let text = try Bech32.encode(hrp: prefix, bytes: [UInt8](repeating: 1, count: 32), limit: .nip19)
    let error = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: text) }
    #expect(error.code == .unknownPrefix)
    var broken = Array(text)
    broken[broken.count - 1] = broken.last == "q" ? "p" : "q"
    let checksumError = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: String(broken)) }
    #expect(checksumError.code == .invalidChecksum)
  }

  /// A TLV entity built from raw records, to reach cases the encoder never writes.
  func raw(_ prefix: String, _ records: [(UInt8, [UInt8])], trailing: [UInt8] = []) throws -> String {
    let payload = records.flatMap { [$0.0, UInt8($0.1.count)] + $0.1 } + trailing
    return try Bech32.encode(hrp: prefix, bytes: payload, limit: .nip19)
  }

  static let key = [UInt8](repeating: 0xAB, count: 32)
  static let keyHex = String(repeating: "ab", count: 32)

  @Test func skipsUnknownTLVTypes() throws {
    let text = try raw(
      "nevent", [(9, [1, 2, 3]), (0, Self.key), (200, []), (1, Array("wss://a".utf8)), (3, [0, 0, 0, 7])])
    #expect(
      try NIP19Entity(decoding: text) == .nevent(id: Self.keyHex, relays: ["wss://a"], author: nil, kind: 7))
  }

  @Test func skipsTypesAnNprofileDoesNotDefine() throws {
    let text = try raw("nprofile", [(0, Self.key), (2, [1]), (3, [1, 2])])
    #expect(try NIP19Entity(decoding: text) == .nprofile(pubkey: Self.keyHex, relays: []))
  }

  @Test func keepsTheFirstOfRepeatedSpecialRecords() throws {
    let other = [UInt8](repeating: 0xCD, count: 32)
    let text = try raw("nprofile", [(0, Self.key), (0, other)])
    #expect(try NIP19Entity(decoding: text) == .nprofile(pubkey: Self.keyHex, relays: []))
  }

  @Test(
    arguments: [
      ("nevent", [(0, [UInt8](repeating: 1, count: 31))], "id"),
      ("nevent", [(0, key), (2, [UInt8](repeating: 1, count: 33))], "author"),
      ("nevent", [(0, key), (3, [0, 1])], "kind"),
      ("nevent", [(0, key), (1, [0xC3, 0x28])], "relay"),
      ("nevent", [(1, Array("wss://a".utf8))], "id"),
      ("nprofile", [(0, key), (0, [1])], "pubkey"),
      ("nprofile", [(1, Array("wss://a".utf8))], "pubkey"),
      ("naddr", [(0, Array("d".utf8)), (3, [0, 0, 0, 1])], "pubkey"),
      ("naddr", [(0, Array("d".utf8)), (2, key)], "kind"),
      ("naddr", [(2, key), (3, [0, 0, 0, 1])], "identifier"),
      ("naddr", [(0, [0xFF]), (2, key), (3, [0, 0, 0, 1])], "identifier"),
    ] as [(String, [(UInt8, [UInt8])], String)])
  func refusesMalformedOrMissingRecords(_ prefix: String, _ records: [(UInt8, [UInt8])], _ field: String)
    throws
  {
    let error = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: raw(prefix, records)) }
    #expect(error.code == .invalidTLV)
    #expect(error.field == field)
  }

  @Test(arguments: [[UInt8]([1]), [1, 5, 0, 0], [0, 32] + [UInt8](repeating: 0, count: 31)])
  func refusesRecordsRunningPastTheEnd(_ trailing: [UInt8]) throws {
    let text = try raw("nprofile", [(0, Self.key)], trailing: trailing)
    let error = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: text) }
    #expect(error.code == .invalidTLV)
  }

  @Test func keepsKindZeroAndTheLargestKind() throws {
    for kind in [0, Int(UInt32.max)] {
      let entity = NIP19Entity.nevent(id: Self.keyHex, relays: [], author: nil, kind: kind)
      #expect(try NIP19Entity(decoding: entity.encoded()) == entity)
    }
  }
}
