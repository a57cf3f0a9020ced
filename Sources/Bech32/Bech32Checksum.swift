/// The BIP-173 checksum and alphabet tables, shared by the encoder and the decoder.
///
/// The polymod step folds the five generator terms into one lookup per character, so the hot
/// loop is a shift, two XORs and a table read.
enum Bech32Checksum {
  /// The value a valid bech32 (BIP-173) checksum leaves in the polymod.
  static let residue: UInt32 = 1

  /// The value a bech32m (BIP-350) checksum leaves; recognised only to name it in the message.
  static let bech32mResidue: UInt32 = 0x2bc8_30a3

  /// The 32 data characters, indexed by their 5-bit value.
  static let alphabet: [UInt8] = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

  /// For each byte, its 5-bit value when it is a data character (either case), else 0xFF.
  static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (index, character) in alphabet.enumerated() {
      table[Int(character)] = UInt8(index)
      if character >= UInt8(ascii: "a") && character <= UInt8(ascii: "z") {
        table[Int(character - 0x20)] = UInt8(index)
      }
    }
    return table
  }()

  /// The `characterClasses` bit of a byte outside ASCII 33–126.
  static let outOfRange: UInt8 = 1

  /// The `characterClasses` bits of a lower-case and of an upper-case letter, together.
  static let bothCases: UInt8 = 6

  /// For each byte, `outOfRange`, 2 for a lower-case letter, 4 for an upper-case one, else 0;
  /// OR-ing them over a string answers both questions in one branch-free pass.
  static let characterClasses: [UInt8] = (0...255).map { byte in
    switch byte {
    case 97...122: 2
    case 65...90: 4
    case 33...126: 0
    default: outOfRange
    }
  }

  /// For each value of the top five bits of the checksum state, the XOR of the generator terms
  /// those bits select.
  static let generatorTable: [UInt32] = {
    let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
    return (0..<32).map { top in
      var term: UInt32 = 0
      for bit in 0..<5 where (top >> bit) & 1 == 1 { term ^= generator[bit] }
      return term
    }
  }()

  /// One polymod step: feeds the 5-bit `value` into `state`.
  @inline(__always)
  static func step(_ state: UInt32, _ value: UInt8, _ table: UnsafeBufferPointer<UInt32>) -> UInt32 {
    ((state & 0x1ff_ffff) << 5) ^ UInt32(value) ^ table[Int(state >> 25)]
  }

  /// The polymod state after the expanded human-readable part, read as lower case.
  static func state(
    afterPrefix hrp: UnsafeBufferPointer<UInt8>, _ table: UnsafeBufferPointer<UInt32>
  ) -> UInt32 {
    var state: UInt32 = 1
    for character in hrp { state = step(state, lowercased(character) >> 5, table) }
    state = step(state, 0, table)
    for character in hrp { state = step(state, lowercased(character) & 31, table) }
    return state
  }

  /// The ASCII byte in lower case (other bytes unchanged).
  @inline(__always)
  static func lowercased(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
  }
}
