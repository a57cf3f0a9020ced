/// TEST FIXTURE: a CBOR writer for synthetic App Attest attestations and assertions (definite
/// lengths only; the library itself only reads CBOR).
public enum TestCBOR {
  /// A header of `major` type with argument `value`, in the shortest form.
  public static func header(_ major: UInt8, _ value: UInt64) -> [UInt8] {
    let type = major << 5
    switch value {
    case 0..<24: return [type | UInt8(value)]
    case 24..<0x100: return [type | 24, UInt8(value)]
    case 0x100..<0x1_0000: return [type | 25, UInt8(value >> 8), UInt8(value & 0xFF)]
    case 0x1_0000..<0x1_0000_0000:
      return [type | 26] + (0..<4).reversed().map { UInt8(value >> (8 * $0) & 0xFF) }
    default: return [type | 27] + (0..<8).reversed().map { UInt8(value >> (8 * $0) & 0xFF) }
    }
  }

  /// A byte string.
  public static func bytes(_ value: [UInt8]) -> [UInt8] { header(2, UInt64(value.count)) + value }
  /// A text string.
  public static func text(_ value: String) -> [UInt8] {
    header(3, UInt64(value.utf8.count)) + Array(value.utf8)
  }
  /// An array of encoded items.
  public static func array(_ items: [[UInt8]]) -> [UInt8] {
    header(4, UInt64(items.count)) + items.flatMap { $0 }
  }
  /// A map with text keys, in the order given.
  public static func map(_ entries: [(String, [UInt8])]) -> [UInt8] {
    header(5, UInt64(entries.count)) + entries.flatMap { text($0.0) + $0.1 }
  }
}
