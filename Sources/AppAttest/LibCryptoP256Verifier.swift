#if canImport(COpenSSLCrypto)
internal import COpenSSLCrypto

/// ECDSA P-256 with SHA-256 verification of DER signatures, on libcrypto (the package's one
/// ES256 verifier: App Attest assertions, and the demo's check of its APNs provider token).
package enum LibCryptoP256Verifier {
  /// The DER SubjectPublicKeyInfo header of a P-256 key (id-ecPublicKey, prime256v1), before
  /// the 65-byte uncompressed point.
  private static let spkiPrefix: [UInt8] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
    0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
  ]

  /// Whether `signature` (DER `ECDSA-Sig-Value`) verifies over SHA-256(`message`) with
  /// `publicKey` (an uncompressed point); `invalid_public_key` when the key is not a point on
  /// P-256.
  package static func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) throws(AppAttestError)
    -> Bool
  {
    guard publicKey.count == 65, publicKey[0] == 0x04 else {
      throw AppAttestError(code: .invalidPublicKey, message: "not a 65-byte uncompressed point")
    }
    let spki = AppAttestPublicKey.der(publicKey)
    let key: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
      var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
      return d2i_PUBKEY(nil, &cursor, buffer.count)
    }
    guard let key else {
      ERR_clear_error()
      throw AppAttestError(code: .invalidPublicKey, message: "not a point on P-256")
    }
    defer { EVP_PKEY_free(key) }
    guard let context = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
      ERR_clear_error()
      return false
    }
    let result = signature.withUnsafeBufferPointer { signatureBuffer in
      message.withUnsafeBufferPointer { messageBuffer in
        EVP_DigestVerify(
          context, signatureBuffer.baseAddress, signatureBuffer.count, messageBuffer.baseAddress,
          messageBuffer.count)
      }
    }
    ERR_clear_error()
    return result == 1
  }
}
#endif
