/// An attested key's stored form, an uncompressed P-256 point (`04 ‖ x ‖ y`), to and from the
/// PEM `PUBLIC KEY` (SubjectPublicKeyInfo) that `nostr-push attest` prints and reads.
///
/// Only the P-256 SubjectPublicKeyInfo of an uncompressed point is read (its DER is one fixed
/// 26-byte header and the point); whether the point is on the curve is the verifier's check.
public enum AppAttestPublicKey {
  /// The DER SubjectPublicKeyInfo header of a P-256 key (id-ecPublicKey, prime256v1), before
  /// the 65-byte uncompressed point.
  static let spkiPrefix: [UInt8] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
    0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
  ]

  /// The largest PEM text read.
  public static let maxPEMBytes = 4096

  /// The DER SubjectPublicKeyInfo of `point`.
  public static func der(_ point: [UInt8]) -> [UInt8] { spkiPrefix + point }

  /// The PEM of `point`: `-----BEGIN PUBLIC KEY-----`, base64 lines of 64, the end line, a
  /// final newline.
  public static func pem(_ point: [UInt8]) -> String {
    let body = Array(AppAttestBase64.encoded(der(point)).utf8)
    var text = "-----BEGIN PUBLIC KEY-----\n"
    var index = 0
    while index < body.count {
      text += String(decoding: body[index..<min(index + 64, body.count)], as: UTF8.self) + "\n"
      index += 64
    }
    return text + "-----END PUBLIC KEY-----\n"
  }

  /// The point in `pem` (one `PUBLIC KEY` block; text around it is ignored); `invalid_public_key`
  /// when it is not a P-256 SubjectPublicKeyInfo of an uncompressed point.
  public static func point(pem: [UInt8]) throws(AppAttestError) -> [UInt8] {
    guard pem.count <= maxPEMBytes else {
      throw AppAttestError(code: .invalidPublicKey, message: "PEM over \(maxPEMBytes) bytes")
    }
    let lines = String(decoding: pem, as: UTF8.self).split(whereSeparator: \.isNewline).map {
      $0.trimmingWhitespace()
    }
    guard let begin = lines.firstIndex(of: "-----BEGIN PUBLIC KEY-----"),
      let end = lines[begin...].firstIndex(of: "-----END PUBLIC KEY-----"),
      let der = AppAttestBase64.decode(lines[(begin + 1)..<end].joined())
    else {
      throw AppAttestError(code: .invalidPublicKey, message: "no base64 PUBLIC KEY block")
    }
    guard der.count == spkiPrefix.count + 65, der.starts(with: spkiPrefix), der[spkiPrefix.count] == 0x04
    else {
      throw AppAttestError(
        code: .invalidPublicKey, message: "not the SubjectPublicKeyInfo of an uncompressed P-256 point")
    }
    return Array(der.suffix(65))
  }
}

extension Substring {
  /// The text without leading and trailing spaces, tabs and carriage returns.
  fileprivate func trimmingWhitespace() -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
  }
}
