#if canImport(COpenSSLCrypto)
internal import COpenSSLCrypto

/// ECDSA P-256 with SHA-256 verification of DER signatures, on libcrypto.
enum LibCryptoP256Verifier {
  /// Whether `signature` (DER `ECDSA-Sig-Value`) verifies over SHA-256(`message`) with
  /// `publicKey` (an uncompressed point); `invalid_public_key` when the key is not a point on
  /// P-256.
  static func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) throws(AppAttestError) -> Bool
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
