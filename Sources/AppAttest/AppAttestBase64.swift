/// Base64 as App Attest's inputs arrive: the standard alphabet (`DCAppAttestService` key ids,
/// most captures) or base64url (the gateway's challenges, some captures), padded or not.
///
/// One owner for the gateway's `key_id`, `attestation` and `assertion` fields and the
/// `nostr-push attest` flags. Refused: characters outside both alphabets, a length that no byte
/// string has (one symbol past a group), padding anywhere but the end or more than needed, and
/// non-zero unused bits in the last symbol (so each byte string has one spelling per alphabet).
public enum AppAttestBase64 {
  private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Each byte's 6-bit value in either alphabet, or 0xFF.
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (value, symbol) in standard.enumerated() { table[Int(symbol)] = UInt8(value) }
    table[Int(UInt8(ascii: "-"))] = 62
    table[Int(UInt8(ascii: "_"))] = 63
    return table
  }()

  /// The bytes `text` encodes, or nil when it is not base64 or base64url (see the type).
  public static func decode(_ text: String) -> [UInt8]? {
    var symbols = Array(text.utf8)
    var padding = 0
    while symbols.last == UInt8(ascii: "=") {
      symbols.removeLast()
      padding += 1
    }
    guard symbols.count % 4 != 1 else { return nil }
    if padding > 0 {
      guard (symbols.count + padding) % 4 == 0, padding == (4 - symbols.count % 4) % 4 else { return nil }
    }
    var output: [UInt8] = []
    output.reserveCapacity(symbols.count * 3 / 4)
    var group: UInt32 = 0
    var bits = 0
    for symbol in symbols {
      let value = values[Int(symbol)]
      guard value != 0xFF else { return nil }
      group = group << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        output.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
        group &= (1 << UInt32(bits)) - 1
      }
    }
    guard group == 0 else { return nil }
    return output
  }

  /// The unpadded base64url text of `bytes` (RFC 4648 §5): the challenges' encoding.
  public static func urlEncoded(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: url, padded: false) }

  /// The padded standard base64 text of `bytes` (RFC 4648 §4).
  public static func encoded(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: standard, padded: true) }

  private static func encode(_ bytes: [UInt8], alphabet: [UInt8], padded: Bool) -> String {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let count = min(3, bytes.count - index)
      var group = UInt32(bytes[index]) << 16
      if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
      if count > 2 { group |= UInt32(bytes[index + 2]) }
      for position in 0..<(count + 1) {
        output.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
      }
      if padded { output.append(contentsOf: [UInt8](repeating: UInt8(ascii: "="), count: 3 - count)) }
      index += 3
    }
    return String(decoding: output, as: UTF8.self)
  }
}
