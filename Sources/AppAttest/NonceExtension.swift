/// The value of the leaf certificate's extension 1.2.840.113635.100.8.2: the DER
/// `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`, read strictly (definite lengths, every
/// element inside its parent, nothing after the sequence).
enum NonceExtension {
  /// The extension's object identifier, dotted.
  static let oid = "1.2.840.113635.100.8.2"

  /// The nonce `der` holds; `invalid_nonce_extension` when it is not that shape.
  static func nonce(fromDER der: [UInt8]) throws(AppAttestError) -> [UInt8] {
    guard let (tag, sequence, end) = element(der[...]), tag == 0x30, end == der.endIndex else {
      throw AppAttestError(code: .invalidNonceExtension, message: "not one DER SEQUENCE")
    }
    var rest = sequence
    while !rest.isEmpty {
      guard let (tag, content, end) = element(rest) else { break }
      if tag == 0xA1 {
        guard let (inner, octets, innerEnd) = element(content), inner == 0x04, innerEnd == content.endIndex
        else {
          throw AppAttestError(code: .invalidNonceExtension, message: "[1] does not hold one OCTET STRING")
        }
        return Array(octets)
      }
      rest = rest[end...]
    }
    throw AppAttestError(code: .invalidNonceExtension, message: "no [1] element in the SEQUENCE")
  }

  /// The first DER element of `bytes`: its tag, its content and the index after it; nil when
  /// the header or the content does not fit (or the length is not definite, or over 64 KiB).
  private static func element(_ bytes: ArraySlice<UInt8>) -> (UInt8, ArraySlice<UInt8>, Int)? {
    var index = bytes.startIndex
    guard bytes.count >= 2 else { return nil }
    let tag = bytes[index]
    index += 1
    var length = Int(bytes[index])
    index += 1
    if length & 0x80 != 0 {
      let count = length & 0x7F
      guard (1...2).contains(count), bytes.endIndex - index >= count else { return nil }
      length = 0
      for _ in 0..<count {
        length = length << 8 | Int(bytes[index])
        index += 1
      }
    }
    guard length <= bytes.endIndex - index else { return nil }
    return (tag, bytes[index..<index + length], index + length)
  }
}
