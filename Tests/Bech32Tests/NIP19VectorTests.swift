import Bech32
import Testing

/// One entry of `nip19-vectors.json`.
struct NIP19Vector: Decodable, Sendable, CustomTestStringConvertible {
  /// One raw TLV record as the file lists it.
  struct Record: Decodable, Sendable {
    var type: Int
  }

  var index = 0
  var kind: String
  var bech32: String
  var valid: Bool
  var reason: String?
  var note: String?
  var hex: String?
  var pubkey: String?
  var id: String?
  var author: String?
  var eventKind: Int?
  var identifier: String?
  var relays: [String]?
  var tlv: [Record]?

  enum CodingKeys: String, CodingKey {
    case kind, bech32, valid, reason, note, hex, pubkey, id, author, identifier, relays, tlv
    case eventKind = "event_kind"
  }

  var testDescription: String { "nip19-vectors.json[\(index)] \(kind): \(bech32.prefix(40))…" }

  static func load() throws -> [NIP19Vector] {
    struct File: Decodable { var vectors: [NIP19Vector] }
    return try VectorFiles.load("nip19-vectors.json", as: File.self).vectors.enumerated().map {
      var vector = $1
      vector.index = $0
      return vector
    }
  }

  /// What this decoder must return for this entry.
  enum Outcome {
    case entity(NIP19Entity)
    case failure(Bech32Error.Code)
  }

  /// The expected outcome. The file's own `valid` decides, except where this package settles a
  /// case the sources disagree on; each exception says why.
  var expected: Outcome? {
    // Decided: `nrelay` (deprecated) and `ncryptsec` (NIP-49) are not NIP-19 entities this
    // decoder supports, so a good checksum with those prefixes is `unknown_prefix`, although the
    // file marks them valid (damus decodes nrelay; the NIP-49 string is a valid ncryptsec).
    if kind == "nrelay" || kind == "ncryptsec" { return valid ? .failure(.unknownPrefix) : invalidCode }
    // Decided: a malformed author in an nevent is `invalid_tlv`. The entry marked LENIENT
    // (rust-nostr drops the bad author) is therefore refused, as go-nostr refuses its twin.
    if note?.contains("LENIENT") == true { return .failure(.invalidTLV) }
    // Decided: a `nostr:` prefix is stripped first, and the decoder applies no NIP-21 policy,
    // so `nostr:nsec1…` decodes as the nsec it contains (rust-nostr's refusal is an application
    // rule about URIs, not a decoding rule).
    if reason?.hasPrefix("NIP-21: nsec") == true, let hex { return .entity(.nsec(secretKey: hex)) }
    guard valid else { return invalidCode }
    return entity.map(Outcome.entity)
  }

  /// The code the decoder assigns to the entry's stated reason.
  private var invalidCode: Outcome? {
    let table: [(String, Bech32Error.Code)] = [
      ("bad checksum", .invalidChecksum),
      ("author TLV", .invalidTLV),
      ("malformed TLV", .invalidTLV),
      ("non-ASCII character", .invalidCharacter),
      ("not bech32", .invalidCharacter),
      ("must be exactly 32 bytes", .invalidLength),
      ("missing required special", .invalidTLV),
      ("requires kind", .invalidTLV),
      ("special (type 0) for nevent must be 32 bytes", .invalidTLV),
      ("mixed case", .mixedCase),
    ]
    guard let reason, let code = table.first(where: { reason.contains($0.0) })?.1 else { return nil }
    return .failure(code)
  }

  /// The entity the entry's fields describe.
  private var entity: NIP19Entity? {
    switch kind {
    case "npub": hex.map { .npub(pubkey: $0) }
    case "nsec": hex.map { .nsec(secretKey: $0) }
    case "note": hex.map { .note(id: $0) }
    case "nprofile": pubkey.map { .nprofile(pubkey: $0, relays: relays ?? []) }
    case "nevent": id.map { .nevent(id: $0, relays: relays ?? [], author: author, kind: eventKind) }
    case "naddr":
      pubkey.flatMap { pubkey in
        eventKind.map {
          .naddr(identifier: identifier ?? "", pubkey: pubkey, kind: $0, relays: relays ?? [])
        }
      }
    default: nil
    }
  }

  /// The expected entity when the entry must decode.
  var expectedEntity: NIP19Entity? {
    if case .entity(let entity) = expected { return entity }
    return nil
  }

  /// Whether the encoder must reproduce the string: its TLV records are in the encoder's order
  /// (type 0, relays, author, kind) and all of a known type.
  var isCanonical: Bool {
    guard let tlv else { return true }
    let types = tlv.map(\.type)
    return types == types.sorted() && types.allSatisfy { $0 <= 3 }
  }
}

@Suite struct NIP19VectorTests {
  @Test func findsEveryVector() throws {
    #expect(try NIP19Vector.load().count == 56)
  }

  @Test(arguments: try NIP19Vector.load())
  func decodesAsTheSpecRequires(_ vector: NIP19Vector) throws {
    let expected = try #require(vector.expected, "no expected outcome derived for this entry")
    switch expected {
    case .entity(let entity):
      #expect(try NIP19Entity(decoding: vector.bech32) == entity)
    case .failure(let code):
      let error = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: vector.bech32) }
      #expect(error.code == code)
    }
  }

  @Test(arguments: try NIP19Vector.load().filter { $0.expectedEntity != nil && $0.isCanonical })
  func reencodesCanonicalEntriesExactly(_ vector: NIP19Vector) throws {
    let entity = try #require(vector.expectedEntity)
    var text = vector.bech32.lowercased()
    if text.hasPrefix("nostr:") { text.removeFirst(6) }
    #expect(try entity.encoded() == text)
  }
}
