import Foundation
import NostrJSON

#if canImport(CryptoKit)
import CryptoKit
#else
import AppAttest
#endif

/// The demo's check of the APNs provider token a wake carried: `authorization: bearer <jwt>`
/// whose header is exactly ES256 with a key id, whose claims name the team and the issue time,
/// and whose signature (JOSE `r ‖ s`) verifies over `header.claims` with the run's public key —
/// on libcrypto through App Attest's P-256 verifier (CryptoKit where it exists).
struct DemoProviderTokenCheck {
  /// The token's key id, team id and issue time, once verified.
  struct Verified {
    let keyID: String
    let teamID: String
    let issuedAt: Int64
  }

  /// The longest token read.
  static let maxTokenBytes = 2048

  /// The verified token of `authorization`, or why not.
  static func verify(authorization: String?, publicKey: [UInt8]) -> Result<Verified, DemoFailure> {
    func refused(_ why: String) -> Result<Verified, DemoFailure> {
      .failure(DemoFailure("wake", "the APNs provider token does not verify: \(why)"))
    }
    guard let authorization, authorization.hasPrefix("bearer "), authorization.utf8.count <= maxTokenBytes
    else { return refused("no bearer authorization") }
    let parts = authorization.dropFirst("bearer ".count).split(
      separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let headerBytes = decode(parts[0]), let claimsBytes = decode(parts[1]),
      let signature = decode(parts[2]), signature.count == 64
    else { return refused("not three base64url parts with a 64-byte signature") }
    guard let header = try? JSONReader().read(headerBytes).objectValue,
      let claims = try? JSONReader().read(claimsBytes).objectValue,
      header["alg"]?.stringValue == "ES256", let keyID = header["kid"]?.stringValue,
      let teamID = claims["iss"]?.stringValue, let issuedAt = claims["iat"]?.integerValue
    else { return refused("not an ES256 header with kid and claims with iss and iat") }
    let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
    guard verifies(signature: signature, over: signingInput, publicKey: publicKey) else {
      return refused("the ES256 signature fails with the run's public key")
    }
    return .success(Verified(keyID: keyID, teamID: teamID, issuedAt: issuedAt))
  }

  /// Whether the JOSE signature verifies over SHA-256(`message`).
  private static func verifies(signature: [UInt8], over message: [UInt8], publicKey: [UInt8]) -> Bool {
    #if canImport(CryptoKit)
    guard let key = try? P256.Signing.PublicKey(x963Representation: publicKey),
      let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
    else { return false }
    return key.isValidSignature(ecdsa, for: Data(message))
    #else
    return
      (try? LibCryptoP256Verifier.verify(
        signature: der(jose: signature), message: message, publicKey: publicKey))
      == true
    #endif
  }

  /// The DER `ECDSA-Sig-Value` (a SEQUENCE of two INTEGERs) of a 64-byte JOSE signature.
  static func der(jose: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
      var value = Array(bytes.drop { $0 == 0 })
      if value.isEmpty { value = [0] }
      if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
      return [0x02, UInt8(value.count)] + value
    }
    let body = integer(jose[0..<32]) + integer(jose[32..<64])
    return [0x30, UInt8(body.count)] + body
  }

  /// Unpadded base64url, decoded.
  private static func decode(_ text: Substring) -> [UInt8]? {
    var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
    while standard.utf8.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard).map(Array.init)
  }
}
