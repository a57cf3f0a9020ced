#if canImport(COpenSSLCrypto)
import AppAttest
internal import COpenSSLCrypto

/// TEST FIXTURE: a throwaway EC P-256 key made by libcrypto, freed in `deinit`, for synthetic
/// App Attest material (the root, the intermediate, a device's key).
///
/// Failures are `attestation_service_failed` (the synthetic service failed), naming the call.
///
/// `@unchecked Sendable`: the key is never changed after init, and each signature uses an
/// `EVP_MD_CTX` of its own, which OpenSSL allows from several threads at once.
final class SyntheticP256Key: @unchecked Sendable {
  let pointer: OpaquePointer

  /// A fresh key.
  init() throws(AppAttestError) {
    guard let generated = nostrpush_ec_p256_generate() else {
      ERR_clear_error()
      throw AppAttestError(code: .attestationServiceFailed, message: "EVP_EC_gen failed")
    }
    pointer = generated
  }

  deinit { EVP_PKEY_free(pointer) }

  /// The public key as an uncompressed point (65 bytes).
  func point() throws(AppAttestError) -> [UInt8] {
    var encoded: UnsafeMutablePointer<UInt8>? = nil
    let count = EVP_PKEY_get1_encoded_public_key(pointer, &encoded)
    guard let encoded, count == 65 else {
      ERR_clear_error()
      throw AppAttestError(
        code: .attestationServiceFailed, message: "EVP_PKEY_get1_encoded_public_key failed")
    }
    defer { CRYPTO_free(encoded, nil, 0) }
    return Array(UnsafeBufferPointer(start: encoded, count: count))
  }

  /// A DER ECDSA signature of SHA-256(`message`), as `DCAppAttestService` signs an assertion's
  /// nonce.
  func sign(_ message: [UInt8]) throws(AppAttestError) -> [UInt8] {
    guard let context = EVP_MD_CTX_new() else {
      throw AppAttestError(code: .attestationServiceFailed, message: "EVP_MD_CTX_new failed")
    }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
      ERR_clear_error()
      throw AppAttestError(code: .attestationServiceFailed, message: "EVP_DigestSignInit failed")
    }
    var signature = [UInt8](repeating: 0, count: 80)
    var length = signature.count
    let signed = message.withUnsafeBufferPointer { input in
      EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
    }
    guard signed == 1 else {
      ERR_clear_error()
      throw AppAttestError(code: .attestationServiceFailed, message: "EVP_DigestSign failed")
    }
    return Array(signature.prefix(length))
  }
}
#endif
