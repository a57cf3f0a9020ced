/// The BIP-173 bech32 codec: a human-readable part, the separator `1`, 5-bit data words and a
/// six-character checksum.
///
/// Use it directly for BIP-173 strings (with the 90-character cap) or through `NIP19Entity`,
/// which runs it with the NIP-19 limit. Decoding works on the UTF-8 bytes with lookup tables, so
/// an npub decodes well under a microsecond.
public enum Bech32 {
  /// The most characters a decoder accepts, or an encoder produces.
  public struct Limit: Sendable, Hashable {
    /// The longest accepted string, in characters.
    public let maxLength: Int

    /// Creates a limit of `maxLength` characters.
    public init(maxLength: Int) { self.maxLength = maxLength }

    /// BIP-173's cap of 90 characters, for strings decoded as BIP-173 bech32 as such.
    public static let bip173 = Limit(maxLength: 90)

    /// NIP-19's bound of 5 000 characters: TLV entities with several relays run past 90.
    public static let nip19 = Limit(maxLength: 5_000)
  }

  /// A checked bech32 string taken apart.
  public struct Decoded: Sendable, Hashable {
    /// The human-readable part, in lower case.
    public let hrp: String
    /// The 5-bit data words, without the checksum.
    public let words: [UInt8]

    /// The data words regrouped into bytes; throws `invalid_padding` on bad leftover bits.
    public func bytes() throws(Bech32Error) -> [UInt8] { try Bech32.bytes(fromWords: words) }
  }

  /// The number of checksum characters at the end of every bech32 string.
  public static let checksumLength = 6

  /// Checks `text` (separator, characters, case, length, checksum) and takes it apart.
  ///
  /// Upper-case input is accepted and reported in lower case; a bech32m checksum fails as
  /// `invalid_checksum`.
  public static func decode(_ text: String, limit: Limit = .bip173) throws(Bech32Error) -> Decoded {
    let result = text.utf8.withContiguousStorageIfAvailable { decode($0, limit: limit) }
    if let result { return try result.get() }
    var copy = text
    copy.makeContiguousUTF8()
    return try copy.utf8.withContiguousStorageIfAvailable { decode($0, limit: limit) }!.get()
  }

  /// Builds the bech32 string for `hrp` and 5-bit `words`, in lower case.
  ///
  /// Throws `invalid_character` for an empty or out-of-range prefix or a word above 31,
  /// `mixed_case` for a mixed-case prefix and `invalid_length` past `limit`.
  public static func encode(hrp: String, words: [UInt8], limit: Limit = .bip173) throws(Bech32Error)
    -> String
  {
    if let offset = words.firstIndex(where: { $0 > 31 }) {
      throw Bech32Error(
        .invalidCharacter, field: "words", offset: offset, "word \(words[offset]) at \(offset) is above 31")
    }
    let prefix = try checkedPrefix(hrp)
    let length = prefix.count + 1 + words.count + checksumLength
    guard length <= limit.maxLength else {
      throw Bech32Error(
        .invalidLength, "\(length) characters is more than the limit of \(limit.maxLength)")
    }
    return words.withUnsafeBufferPointer { words in
      prefix.withUnsafeBufferPointer { prefix in assemble(prefix: prefix, words: words) }
    }
  }

  /// Builds the bech32 string for `hrp` and the bytes `bytes` (regrouped into 5-bit words).
  public static func encode(hrp: String, bytes: [UInt8], limit: Limit = .bip173) throws(Bech32Error)
    -> String
  {
    try encode(hrp: hrp, words: words(fromBytes: bytes), limit: limit)
  }

  /// Regroups bytes into 5-bit words, padding the last word with zero bits.
  public static func words(fromBytes bytes: [UInt8]) -> [UInt8] {
    var words: [UInt8] = []
    words.reserveCapacity((bytes.count * 8 + 4) / 5)
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in bytes {
      accumulator = (accumulator << 8) | UInt32(byte)
      bits += 8
      while bits >= 5 {
        bits -= 5
        words.append(UInt8((accumulator >> UInt32(bits)) & 31))
      }
    }
    if bits > 0 { words.append(UInt8((accumulator << UInt32(5 - bits)) & 31)) }
    return words
  }

  /// Regroups 5-bit words into bytes; at most 4 leftover bits are allowed, all zero.
  public static func bytes(fromWords words: [UInt8]) throws(Bech32Error) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(words.count * 5 / 8)
    var accumulator: UInt32 = 0
    var bits = 0
    for (offset, word) in words.enumerated() {
      guard word <= 31 else {
        throw Bech32Error(.invalidCharacter, field: "words", offset: offset, "word \(word) is above 31")
      }
      accumulator = ((accumulator << 5) | UInt32(word)) & 0xFFF
      bits += 5
      if bits >= 8 {
        bits -= 8
        bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      }
    }
    guard bits <= 4 else {
      throw Bech32Error(.invalidPadding, "\(bits) leftover bits; at most 4 are allowed")
    }
    guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else {
      throw Bech32Error(.invalidPadding, "the \(bits) leftover bits are not zero")
    }
    return bytes
  }

  /// The lower-case bytes of a valid human-readable part.
  static func checkedPrefix(_ hrp: String) throws(Bech32Error) -> [UInt8] {
    var prefix = Array(hrp.utf8)
    guard !prefix.isEmpty else { throw Bech32Error(.invalidCharacter, field: "hrp", "the prefix is empty") }
    var hasLower = false
    var hasUpper = false
    for (offset, byte) in prefix.enumerated() {
      guard byte >= 33 && byte <= 126 else {
        throw Bech32Error(
          .invalidCharacter, field: "hrp", offset: offset, "prefix byte \(byte) is outside ASCII 33–126")
      }
      if byte &- UInt8(ascii: "a") < 26 { hasLower = true }
      if byte &- UInt8(ascii: "A") < 26 {
        hasUpper = true
        prefix[offset] = byte | 0x20
      }
    }
    guard !(hasLower && hasUpper) else {
      throw Bech32Error(.mixedCase, field: "hrp", "the prefix mixes upper and lower case")
    }
    return prefix
  }

  /// Writes prefix, separator, data and checksum; the prefix is valid lower case.
  static func assemble(prefix: UnsafeBufferPointer<UInt8>, words: UnsafeBufferPointer<UInt8>) -> String {
    let length = prefix.count + 1 + words.count + checksumLength
    return Bech32Checksum.generatorTable.withUnsafeBufferPointer { table in
      Bech32Checksum.alphabet.withUnsafeBufferPointer { alphabet in
        String(unsafeUninitializedCapacity: length) { output in
          var state = Bech32Checksum.state(afterPrefix: prefix, table)
          var index = 0
          for byte in prefix {
            output[index] = byte
            index += 1
          }
          output[index] = UInt8(ascii: "1")
          index += 1
          for word in words {
            state = Bech32Checksum.step(state, word, table)
            output[index] = alphabet[Int(word)]
            index += 1
          }
          for _ in 0..<checksumLength { state = Bech32Checksum.step(state, 0, table) }
          state ^= Bech32Checksum.residue
          for position in 0..<checksumLength {
            let word = (state >> UInt32(5 * (checksumLength - 1 - position))) & 31
            output[index] = alphabet[Int(word)]
            index += 1
          }
          return length
        }
      }
    }
  }

  /// The decoder proper, over the UTF-8 bytes of the input.
  ///
  /// An input over the limit is refused after looking at no more than `limit + 1` bytes, so a
  /// huge input costs no more than a long valid one.
  static func decode(_ input: UnsafeBufferPointer<UInt8>, limit: Limit) -> Result<Decoded, Bech32Error> {
    let examined = min(input.count, limit.maxLength + 1)
    var hasLower = false
    var hasUpper = false
    var separator = -1
    for offset in 0..<examined {
      let byte = input[offset]
      guard byte >= 33 && byte <= 126 else {
        return .failure(
          Bech32Error(.invalidCharacter, offset: offset, "byte \(byte) at \(offset) is outside ASCII 33–126"))
      }
      if byte &- UInt8(ascii: "a") < 26 { hasLower = true }
      if byte &- UInt8(ascii: "A") < 26 { hasUpper = true }
      if byte == UInt8(ascii: "1") { separator = offset }
    }
    guard input.count <= limit.maxLength else {
      return .failure(
        Bech32Error(.invalidLength, "more than \(limit.maxLength) characters, the limit"))
    }
    guard !(hasLower && hasUpper) else {
      return .failure(Bech32Error(.mixedCase, "the string mixes upper and lower case"))
    }
    guard separator >= 0 else {
      return .failure(Bech32Error(.invalidCharacter, "no separator '1'"))
    }
    guard separator > 0 else {
      return .failure(Bech32Error(.invalidCharacter, offset: 0, "the prefix before the separator is empty"))
    }
    let dataCount = input.count - separator - 1
    guard dataCount >= checksumLength else {
      return .failure(
        Bech32Error(
          .invalidLength, "\(dataCount) characters after the separator; at least \(checksumLength) are needed"
        ))
    }
    let prefix = UnsafeBufferPointer(rebasing: input[..<separator])
    var failure: Bech32Error?
    let words = [UInt8](unsafeUninitializedCapacity: dataCount - checksumLength) { words, count in
      Bech32Checksum.generatorTable.withUnsafeBufferPointer { table in
        Bech32Checksum.values.withUnsafeBufferPointer { values in
          var state = Bech32Checksum.state(afterPrefix: prefix, table)
          for offset in (separator + 1)..<input.count {
            let value = values[Int(input[offset])]
            guard value != 0xFF else {
              failure = Bech32Error(
                .invalidCharacter, offset: offset,
                "'\(UnicodeScalar(input[offset]))' at \(offset) is not a bech32 data character")
              return
            }
            state = Bech32Checksum.step(state, value, table)
            if count < words.count {
              words[count] = value
              count += 1
            }
          }
          if state != Bech32Checksum.residue {
            let kind = state == Bech32Checksum.bech32mResidue ? "a bech32m checksum" : "the checksum fails"
            failure = Bech32Error(.invalidChecksum, "\(kind); bech32 (BIP-173) is required")
          }
        }
      }
    }
    if let failure { return .failure(failure) }
    let hrp = String(unsafeUninitializedCapacity: separator) { output in
      for (index, byte) in prefix.enumerated() { output[index] = Bech32Checksum.lowercased(byte) }
      return separator
    }
    return .success(Decoded(hrp: hrp, words: words))
  }
}
