/// A NIP-19 entity: a bare key or id (`npub`, `nsec`, `note`) or a TLV share link (`nprofile`,
/// `nevent`, `naddr`).
///
/// Decode anything a user pastes with `init(decoding:)`; build links with `encoded()`. Keys and
/// ids are lower-case hex strings of 32 bytes; encoding accepts either case and refuses anything
/// else with a typed error naming the field.
public enum NIP19Entity: Sendable, Hashable {
  /// A public key.
  case npub(pubkey: String)
  /// A secret key.
  case nsec(secretKey: String)
  /// An event id.
  case note(id: String)
  /// A public key with relays where the profile may be found.
  case nprofile(pubkey: String, relays: [String])
  /// An event id with relay hints and, optionally, its author and kind.
  case nevent(id: String, relays: [String], author: String?, kind: Int?)
  /// An addressable event: its `d` identifier, author and kind, with relay hints.
  case naddr(identifier: String, pubkey: String, kind: Int, relays: [String])

  /// The NIP-21 URI scheme prefix that `init(decoding:)` strips when present.
  package static let uriPrefix = "nostr:"

  /// The size of keys and event ids, in bytes.
  package static let keyLength = 32

  /// The number of 5-bit words that carry `keyLength` bytes.
  static let keyWordCount = (keyLength * 8 + 4) / 5

  /// The human-readable part this entity is encoded with (`npub`, `nevent`, …).
  public var prefix: String {
    switch self {
    case .npub: "npub"
    case .nsec: "nsec"
    case .note: "note"
    case .nprofile: "nprofile"
    case .nevent: "nevent"
    case .naddr: "naddr"
    }
  }

  /// Decodes a NIP-19 string, optionally prefixed with `nostr:`, of up to 5 000 characters.
  ///
  /// Checks run in this order: characters, length, case, separator, checksum, then the prefix
  /// (`unknown_prefix`), the padding and the payload. Unknown TLV types are skipped.
  public init(decoding text: String) throws(Bech32Error) {
    let text =
      Self.hasURIPrefix(text)
      ? String(decoding: text.utf8.dropFirst(Self.uriPrefix.utf8.count), as: UTF8.self) : text
    if let entity = Self.decodeBareKey(text) {
      self = entity
      return
    }
    let decoded = try Bech32.decode(text, limit: .nip19)
    switch decoded.hrp {
    case "npub": self = .npub(pubkey: try Self.key(decoded, field: "pubkey"))
    case "nsec": self = .nsec(secretKey: try Self.key(decoded, field: "secret_key"))
    case "note": self = .note(id: try Self.key(decoded, field: "id"))
    case "nprofile":
      let records = try TLVRecords(parsing: decoded.bytes())
      guard let pubkey = try records.first(.special, length: Self.keyLength, field: "pubkey") else {
        throw Bech32Error(code: .invalidTLV, field: "pubkey", message: "nprofile has no pubkey (TLV type 0)")
      }
      self = .nprofile(pubkey: HexBytes.string(pubkey), relays: try records.texts(.relay, field: "relay"))
    case "nevent":
      let records = try TLVRecords(parsing: decoded.bytes())
      guard let id = try records.first(.special, length: Self.keyLength, field: "id") else {
        throw Bech32Error(code: .invalidTLV, field: "id", message: "nevent has no id (TLV type 0)")
      }
      let author = try records.first(.author, length: Self.keyLength, field: "author")
      let kind = try records.first(.kind, length: 4, field: "kind")
      self = .nevent(
        id: HexBytes.string(id), relays: try records.texts(.relay, field: "relay"),
        author: author.map { HexBytes.string($0) }, kind: kind.map(Self.kindValue))
    case "naddr":
      let records = try TLVRecords(parsing: decoded.bytes())
      guard let identifier = try records.first(.special, length: nil, field: "identifier") else {
        throw Bech32Error(
          code: .invalidTLV, field: "identifier", message: "naddr has no identifier (TLV type 0)")
      }
      guard let pubkey = try records.first(.author, length: Self.keyLength, field: "pubkey") else {
        throw Bech32Error(
          code: .invalidTLV, field: "pubkey", message: "naddr has no author pubkey (TLV type 2)")
      }
      guard let kind = try records.first(.kind, length: 4, field: "kind") else {
        throw Bech32Error(code: .invalidTLV, field: "kind", message: "naddr has no kind (TLV type 3)")
      }
      self = .naddr(
        identifier: try TLVRecords.text(identifier, field: "identifier"), pubkey: HexBytes.string(pubkey),
        kind: Self.kindValue(kind), relays: try records.texts(.relay, field: "relay"))
    default:
      throw Bech32Error(
        code: .unknownPrefix, field: "hrp",
        message: "'\(decoded.hrp)' is not npub, nsec, note, nprofile, nevent or naddr")
    }
  }

  /// The lower-case bech32 string for this entity.
  ///
  /// Throws `invalid_length` or `invalid_character` for a key or id that is not 64 hex digits,
  /// `invalid_tlv` for a relay or identifier over 255 bytes or a kind outside 0…2³²−1, and
  /// `invalid_length` when the result would pass 5 000 characters.
  public func encoded() throws(Bech32Error) -> String {
    switch self {
    case .npub(let pubkey): return try Self.encodeKey(pubkey, prefix: "npub", field: "pubkey")
    case .nsec(let secretKey): return try Self.encodeKey(secretKey, prefix: "nsec", field: "secret_key")
    case .note(let id): return try Self.encodeKey(id, prefix: "note", field: "id")
    case .nprofile(let pubkey, let relays):
      var writer = TLVWriter()
      try writer.append(
        .special, HexBytes.bytes(pubkey, byteCount: Self.keyLength, field: "pubkey"), field: "pubkey")
      for relay in relays { try writer.append(.relay, relay.utf8, field: "relay") }
      return try Bech32.encode(knownPrefix: "nprofile", bytes: writer.bytes, limit: .nip19)
    case .nevent(let id, let relays, let author, let kind):
      var writer = TLVWriter()
      try writer.append(.special, HexBytes.bytes(id, byteCount: Self.keyLength, field: "id"), field: "id")
      for relay in relays { try writer.append(.relay, relay.utf8, field: "relay") }
      if let author {
        try writer.append(
          .author, HexBytes.bytes(author, byteCount: Self.keyLength, field: "author"), field: "author")
      }
      if let kind { try writer.append(.kind, Self.kindBytes(kind), field: "kind") }
      return try Bech32.encode(knownPrefix: "nevent", bytes: writer.bytes, limit: .nip19)
    case .naddr(let identifier, let pubkey, let kind, let relays):
      var writer = TLVWriter()
      try writer.append(.special, identifier.utf8, field: "identifier")
      for relay in relays { try writer.append(.relay, relay.utf8, field: "relay") }
      try writer.append(
        .author, HexBytes.bytes(pubkey, byteCount: Self.keyLength, field: "pubkey"), field: "pubkey")
      try writer.append(.kind, Self.kindBytes(kind), field: "kind")
      return try Bech32.encode(knownPrefix: "naddr", bytes: writer.bytes, limit: .nip19)
    }
  }

  /// A valid `npub`, `nsec` or `note` decoded without intermediate arrays (the hot path of
  /// notification display); nil for anything else, which the general path then decodes or refuses.
  private static func decodeBareKey(_ text: String) -> NIP19Entity? {
    HexBytes.withUTF8(text) { input -> NIP19Entity? in
      guard input.count == 4 + 1 + keyWordCount + Bech32.checksumLength else { return nil }
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: input.count) { words -> NIP19Entity? in
        guard case .success(4) = Bech32.check(input, limit: .nip19, words: words),
          let hex = HexBytes.string(regrouping: UnsafeBufferPointer(rebasing: words[..<keyWordCount]))
        else { return nil }
        var prefix: UInt32 = 0
        for index in 0..<4 { prefix = prefix << 8 | UInt32(Bech32Checksum.lowercased(input[index])) }
        switch prefix {
        case 0x6E70_7562: return .npub(pubkey: hex)  // "npub"
        case 0x6E73_6563: return .nsec(secretKey: hex)  // "nsec"
        case 0x6E6F_7465: return .note(id: hex)  // "note"
        default: return nil
        }
      }
    }
  }

  /// Whether `text` starts with `nostr:` in either case.
  private static func hasURIPrefix(_ text: String) -> Bool {
    HexBytes.withUTF8(text) { utf8 in
      let scheme: StaticString = "nostr:"
      guard utf8.count > scheme.utf8CodeUnitCount else { return false }
      for index in 0..<scheme.utf8CodeUnitCount
      where Bech32Checksum.lowercased(utf8[index]) != scheme.utf8Start[index] {
        return false
      }
      return true
    }
  }

  /// The lower-case hex of a bare 32-byte payload.
  private static func key(_ decoded: Bech32.Decoded, field: String) throws(Bech32Error) -> String {
    let bytes = try decoded.bytes()
    guard bytes.count == keyLength else {
      throw Bech32Error(
        code: .invalidLength, field: field,
        message: "\(decoded.hrp) carries \(bytes.count) bytes; exactly \(keyLength) are required")
    }
    return HexBytes.string(bytes)
  }

  /// The bech32 string of a bare 32-byte payload given as hex.
  private static func encodeKey(_ hex: String, prefix: StaticString, field: String) throws(Bech32Error)
    -> String
  {
    let result = HexBytes.withUTF8(hex) { utf8 in
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: keyLength) {
        bytes -> Result<String, Bech32Error> in
        if let failure = HexBytes.parse(utf8, into: bytes, field: field) { return .failure(failure) }
        let prefix = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return .success(Bech32.assemble(prefix: prefix, bytes: UnsafeBufferPointer(bytes)))
      }
    }
    return try result.get()
  }

  /// A 4-byte big-endian kind as an integer.
  private static func kindValue(_ bytes: ArraySlice<UInt8>) -> Int {
    bytes.reduce(0) { ($0 << 8) | Int($1) }
  }

  /// A kind as 4 big-endian bytes; outside 0…2³²−1 it cannot be encoded.
  private static func kindBytes(_ kind: Int) throws(Bech32Error) -> [UInt8] {
    guard let value = UInt32(exactly: kind) else {
      throw Bech32Error(code: .invalidTLV, field: "kind", message: "kind \(kind) is outside 0…4294967295")
    }
    return [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }
}
