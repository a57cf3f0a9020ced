/// The BIP-173 bech32 codec: a human-readable part, the separator `1`, 5-bit data words and a
/// six-character checksum.
///
/// Use it directly for BIP-173 strings (with the 90-character cap) or through `NIP19Entity`,
/// which runs it with the NIP-19 limit. Decoding works on the UTF-8 bytes with lookup tables, so
/// an npub decodes well under a microsecond.
package enum Bech32 {
  /// The most characters a decoder accepts, or an encoder produces.
  package struct Limit: Sendable, Hashable {
    /// The longest accepted string, in characters.
    package let maxLength: Int

    /// Creates a limit of `maxLength` characters.
    package init(maxLength: Int) { self.maxLength = maxLength }

    /// BIP-173's cap of 90 characters, for strings decoded as BIP-173 bech32 as such.
    package static let bip173 = Limit(maxLength: 90)

    /// NIP-19's bound of 5 000 characters: TLV entities with several relays run past 90.
    package static let nip19 = Limit(maxLength: 5_000)
  }

  /// A checked bech32 string taken apart.
  package struct Decoded: Sendable, Hashable {
    /// The human-readable part, in lower case.
    package let hrp: String
    /// The 5-bit data words, without the checksum.
    package let words: [UInt8]

    /// The data words regrouped into bytes; throws `invalid_padding` on bad leftover bits.
    package func bytes() throws(Bech32Error) -> [UInt8] { try Bech32.bytes(fromWords: words) }
  }

  /// The number of checksum characters at the end of every bech32 string.
  package static let checksumLength = 6

  /// Checks `text` (separator, characters, case, length, checksum) and takes it apart.
  ///
  /// Upper-case input is accepted and reported in lower case; a bech32m checksum fails as
  /// `invalid_checksum`.
  package static func decode(_ text: String, limit: Limit = .bip173) throws(Bech32Error) -> Decoded {
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
  package static func encode(hrp: String, words: [UInt8], limit: Limit = .bip173) throws(Bech32Error)
    -> String
  {
    if let offset = words.firstIndex(where: { $0 > 31 }) {
      throw Bech32Error(
        code: .invalidCharacter, field: "words", message: "word \(words[offset]) at \(offset) is above 31",
        detail: offset)
    }
    let prefix = try checkedPrefix(hrp)
    let length = prefix.count + 1 + words.count + checksumLength
    guard length <= limit.maxLength else {
      throw Bech32Error(
        code: .invalidLength, message: "\(length) characters is more than the limit of \(limit.maxLength)")
    }
    return words.withUnsafeBufferPointer { words in
      prefix.withUnsafeBufferPointer { prefix in assemble(prefix: prefix, words: words) }
    }
  }

  /// Builds the bech32 string for `hrp` and the bytes `bytes` (regrouped into 5-bit words).
  package static func encode(hrp: String, bytes: [UInt8], limit: Limit = .bip173) throws(Bech32Error)
    -> String
  {
    let prefix = try checkedPrefix(hrp)
    try checkLength(prefixCount: prefix.count, byteCount: bytes.count, limit: limit)
    return prefix.withUnsafeBufferPointer { prefix in
      bytes.withUnsafeBufferPointer { bytes in assemble(prefix: prefix, bytes: bytes) }
    }
  }

  /// Builds the bech32 string for a prefix known to be valid lower case (the NIP-19 ones).
  static func encode(knownPrefix prefix: StaticString, bytes: [UInt8], limit: Limit) throws(Bech32Error)
    -> String
  {
    try checkLength(prefixCount: prefix.utf8CodeUnitCount, byteCount: bytes.count, limit: limit)
    return bytes.withUnsafeBufferPointer { bytes in
      assemble(
        prefix: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount), bytes: bytes)
    }
  }

  /// Throws `invalid_length` when a string for `byteCount` bytes would pass `limit`.
  private static func checkLength(prefixCount: Int, byteCount: Int, limit: Limit) throws(Bech32Error) {
    let length = prefixCount + 1 + (byteCount * 8 + 4) / 5 + checksumLength
    guard length <= limit.maxLength else {
      throw Bech32Error(
        code: .invalidLength, message: "\(length) characters is more than the limit of \(limit.maxLength)")
    }
  }

  /// Regroups bytes into 5-bit words, padding the last word with zero bits.
  package static func words(fromBytes bytes: [UInt8]) -> [UInt8] {
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
  package static func bytes(fromWords words: [UInt8]) throws(Bech32Error) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(words.count * 5 / 8)
    var accumulator: UInt32 = 0
    var bits = 0
    for (offset, word) in words.enumerated() {
      guard word <= 31 else {
        throw Bech32Error(
          code: .invalidCharacter, field: "words", message: "word \(word) is above 31", detail: offset)
      }
      accumulator = ((accumulator << 5) | UInt32(word)) & 0xFFF
      bits += 5
      if bits >= 8 {
        bits -= 8
        bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      }
    }
    guard bits <= 4 else {
      throw Bech32Error(code: .invalidPadding, message: "\(bits) leftover bits; at most 4 are allowed")
    }
    guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else {
      throw Bech32Error(code: .invalidPadding, message: "the \(bits) leftover bits are not zero")
    }
    return bytes
  }

  /// The lower-case bytes of a valid human-readable part.
  static func checkedPrefix(_ hrp: String) throws(Bech32Error) -> [UInt8] {
    var prefix = Array(hrp.utf8)
    guard !prefix.isEmpty else {
      throw Bech32Error(code: .invalidCharacter, field: "hrp", message: "the prefix is empty")
    }
    var hasLower = false
    var hasUpper = false
    for (offset, byte) in prefix.enumerated() {
      guard byte >= 33 && byte <= 126 else {
        throw Bech32Error(
          code: .invalidCharacter, field: "hrp", message: "prefix byte \(byte) is outside ASCII 33–126",
          detail: offset)
      }
      if byte &- UInt8(ascii: "a") < 26 { hasLower = true }
      if byte &- UInt8(ascii: "A") < 26 {
        hasUpper = true
        prefix[offset] = byte | 0x20
      }
    }
    guard !(hasLower && hasUpper) else {
      throw Bech32Error(code: .mixedCase, field: "hrp", message: "the prefix mixes upper and lower case")
    }
    return prefix
  }

  /// Writes the prefix and the `1` separator at the start of `output`; returns the next index.
  @inline(__always)
  private static func writeHead(
    _ prefix: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
  )
    -> Int
  {
    var index = 0
    for byte in prefix {
      output[index] = byte
      index += 1
    }
    output[index] = UInt8(ascii: "1")
    return index + 1
  }

  /// Finishes the checksum from `state` (after the data words) and writes its six words at `index`.
  @inline(__always)
  private static func writeChecksum(
    _ state: UInt32, at index: Int, into output: UnsafeMutableBufferPointer<UInt8>,
    table: UnsafeBufferPointer<UInt32>, alphabet: UnsafeBufferPointer<UInt8>
  ) {
    var state = state
    for _ in 0..<checksumLength { state = Bech32Checksum.step(state, 0, table) }
    state ^= Bech32Checksum.residue
    for position in 0..<checksumLength {
      let word = (state >> UInt32(5 * (checksumLength - 1 - position))) & 31
      output[index + position] = alphabet[Int(word)]
    }
  }

  /// Writes prefix, separator, data and checksum; the prefix is valid lower case.
  static func assemble(prefix: UnsafeBufferPointer<UInt8>, words: UnsafeBufferPointer<UInt8>) -> String {
    let length = prefix.count + 1 + words.count + checksumLength
    return Bech32Checksum.generatorTable.withUnsafeBufferPointer { table in
      Bech32Checksum.alphabet.withUnsafeBufferPointer { alphabet in
        String(unsafeUninitializedCapacity: length) { output in
          var state = Bech32Checksum.state(afterPrefix: prefix, table)
          var index = writeHead(prefix, into: output)
          for word in words {
            state = Bech32Checksum.step(state, word, table)
            output[index] = alphabet[Int(word)]
            index += 1
          }
          writeChecksum(state, at: index, into: output, table: table, alphabet: alphabet)
          return length
        }
      }
    }
  }

  /// Writes prefix, separator, the bytes regrouped into words, and checksum; the prefix is valid
  /// lower case.
  static func assemble(prefix: UnsafeBufferPointer<UInt8>, bytes: UnsafeBufferPointer<UInt8>) -> String {
    let wordCount = (bytes.count * 8 + 4) / 5
    let length = prefix.count + 1 + wordCount + checksumLength
    return Bech32Checksum.generatorTable.withUnsafeBufferPointer { table in
      Bech32Checksum.alphabet.withUnsafeBufferPointer { alphabet in
        String(unsafeUninitializedCapacity: length) { output in
          var state = Bech32Checksum.state(afterPrefix: prefix, table)
          var index = writeHead(prefix, into: output)
          var accumulator: UInt32 = 0
          var bits: UInt32 = 0
          var next = 0
          // Five bytes are exactly eight words: take them 40 bits at a time.
          while next + 5 <= bytes.count {
            var group: UInt64 = 0
            for offset in 0..<5 { group = (group << 8) | UInt64(bytes[next &+ offset]) }
            var shift: UInt64 = 40
            while shift > 0 {
              shift &-= 5
              let word = UInt8(truncatingIfNeeded: group >> shift) & 31
              state = Bech32Checksum.step(state, word, table)
              output[index] = alphabet[Int(word)]
              index &+= 1
            }
            next &+= 5
          }
          for byte in bytes[next...] {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
              bits -= 5
              let word = UInt8((accumulator >> bits) & 31)
              state = Bech32Checksum.step(state, word, table)
              output[index] = alphabet[Int(word)]
              index += 1
            }
            accumulator &= (1 << bits) - 1
          }
          if bits > 0 {
            let word = UInt8((accumulator << (5 - bits)) & 31)
            state = Bech32Checksum.step(state, word, table)
            output[index] = alphabet[Int(word)]
            index += 1
          }
          writeChecksum(state, at: index, into: output, table: table, alphabet: alphabet)
          return length
        }
      }
    }
  }

  /// The decoder proper, over the UTF-8 bytes of the input.
  static func decode(_ input: UnsafeBufferPointer<UInt8>, limit: Limit) -> Result<Decoded, Bech32Error> {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(min(input.count, limit.maxLength), 1)) {
      words in
      check(input, limit: limit, words: words).map { separator in
        let hrp = String(unsafeUninitializedCapacity: separator) { output in
          for index in 0..<separator { output[index] = Bech32Checksum.lowercased(input[index]) }
          return separator
        }
        return Decoded(hrp: hrp, words: Array(words[..<(input.count - separator - 1 - checksumLength)]))
      }
    }
  }

  /// Checks `input` and writes its data words (checksum excluded) to the start of `words`;
  /// returns the offset of the separator.
  ///
  /// `words` must hold `min(input.count, limit.maxLength)` bytes. An input over the limit is
  /// refused after looking at no more than `limit + 1` bytes, so a huge input costs no more than
  /// a long valid one.
  static func check(
    _ input: UnsafeBufferPointer<UInt8>, limit: Limit, words: UnsafeMutableBufferPointer<UInt8>
  )
    -> Result<Int, Bech32Error>
  {
    let examined = min(input.count, limit.maxLength + 1)
    var classes: UInt8 = 0
    Bech32Checksum.characterClasses.withUnsafeBufferPointer { table in
      for byte in input[..<examined] { classes |= table[Int(byte)] }
    }
    if classes & Bech32Checksum.outOfRange != 0 {
      let offset = input[..<examined].firstIndex { $0 < 33 || $0 > 126 } ?? 0
      return .failure(
        Bech32Error(
          code: .invalidCharacter, message: "byte \(input[offset]) at \(offset) is outside ASCII 33–126",
          detail: offset))
    }
    guard input.count <= limit.maxLength else {
      return .failure(
        Bech32Error(code: .invalidLength, message: "more than \(limit.maxLength) characters, the limit"))
    }
    guard classes & Bech32Checksum.bothCases != Bech32Checksum.bothCases else {
      return .failure(Bech32Error(code: .mixedCase, message: "the string mixes upper and lower case"))
    }
    guard let separator = input.lastIndex(of: UInt8(ascii: "1")) else {
      return .failure(Bech32Error(code: .invalidCharacter, message: "no separator '1'"))
    }
    guard separator > 0 else {
      return .failure(
        Bech32Error(code: .invalidCharacter, message: "the prefix before the separator is empty", detail: 0))
    }
    let dataCount = input.count - separator - 1
    guard dataCount >= checksumLength else {
      return .failure(
        Bech32Error(
          code: .invalidLength,
          message: "\(dataCount) characters after the separator; at least \(checksumLength) are needed"))
    }
    let prefix = UnsafeBufferPointer(rebasing: input[..<separator])
    let data = UnsafeBufferPointer(rebasing: input[(separator + 1)...])
    let wordCount = dataCount - checksumLength
    var invalid: UInt8 = 0
    var state: UInt32 = 0
    Bech32Checksum.generatorTable.withUnsafeBufferPointer { table in
      Bech32Checksum.values.withUnsafeBufferPointer { values in
        state = Bech32Checksum.state(afterPrefix: prefix, table)
        for index in 0..<wordCount {
          let value = values[Int(data[index])]
          invalid |= value
          state = Bech32Checksum.step(state, value & 31, table)
          words[index] = value
        }
        for index in wordCount..<dataCount {
          let value = values[Int(data[index])]
          invalid |= value
          state = Bech32Checksum.step(state, value & 31, table)
        }
      }
    }
    if invalid & 0x80 != 0 {
      let index = data.firstIndex { Bech32Checksum.values[Int($0)] == 0xFF } ?? 0
      let offset = separator + 1 + index
      return .failure(
        Bech32Error(
          code: .invalidCharacter,
          message: "'\(UnicodeScalar(data[index]))' at \(offset) is not a bech32 data character",
          detail: offset))
    }
    guard state == Bech32Checksum.residue else {
      let kind = state == Bech32Checksum.bech32mResidue ? "a bech32m checksum" : "the checksum fails"
      return .failure(Bech32Error(code: .invalidChecksum, message: "\(kind); bech32 (BIP-173) is required"))
    }
    return .success(separator)
  }
}
