#if canImport(COpenSSLCrypto)
internal import COpenSSLCrypto

/// One X.509 certificate parsed by libcrypto, freed in `deinit`.
///
/// `@unchecked Sendable`: the certificate is never changed after init; libcrypto's read
/// functions and `X509_verify_cert` on a context of the caller's own may share it across threads.
final class LibCryptoCertificate: @unchecked Sendable {
  let pointer: OpaquePointer

  /// Parses exactly one DER certificate: bytes after it are refused.
  init(der: [UInt8]) throws(AppAttestError) {
    let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
      var cursor: UnsafePointer<UInt8>? = base
      guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
      guard cursor == base + buffer.count else {
        X509_free(certificate)
        return nil
      }
      return certificate
    }
    guard let parsed else {
      ERR_clear_error()
      throw AppAttestError(code: .invalidCertificate, message: "not one DER X.509 certificate")
    }
    pointer = parsed
  }

  /// Parses the first PEM certificate of `pem`.
  init(pem: [UInt8]) throws(AppAttestError) {
    let parsed: OpaquePointer? = pem.withUnsafeBytes { bytes in
      guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_X509(bio, nil, nil, nil)
    }
    guard let parsed else {
      ERR_clear_error()
      throw AppAttestError(code: .invalidCertificate, message: "no PEM X.509 certificate")
    }
    pointer = parsed
  }

  deinit { X509_free(pointer) }

  /// The DER encoding.
  var der: [UInt8] {
    var output: UnsafeMutablePointer<UInt8>? = nil
    let count = i2d_X509(pointer, &output)
    guard count > 0, let output else { return [] }
    defer { CRYPTO_free(output, nil, 0) }
    return Array(UnsafeBufferPointer(start: output, count: Int(count)))
  }

  /// The certificate's P-256 public key as an uncompressed point (65 bytes);
  /// `invalid_certificate` for any other key.
  func p256PublicKey() throws(AppAttestError) -> [UInt8] {
    guard let key = X509_get0_pubkey(pointer), nostrpush_evp_pkey_base_id(key) == nostrpush_evp_pkey_ec()
    else {
      ERR_clear_error()
      throw AppAttestError(code: .invalidCertificate, message: "the leaf key is not an EC key")
    }
    var name = [CChar](repeating: 0, count: 64)
    var nameLength = 0
    guard EVP_PKEY_get_group_name(key, &name, name.count, &nameLength) == 1,
      String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
    else {
      throw AppAttestError(code: .invalidCertificate, message: "the leaf key is not on P-256")
    }
    var encoded: UnsafeMutablePointer<UInt8>? = nil
    let count = EVP_PKEY_get1_encoded_public_key(key, &encoded)
    guard let encoded else {
      ERR_clear_error()
      throw AppAttestError(code: .invalidCertificate, message: "the leaf key cannot be encoded")
    }
    defer { CRYPTO_free(encoded, nil, 0) }
    let point = Array(UnsafeBufferPointer(start: encoded, count: count))
    guard point.count == 65, point[0] == 0x04 else {
      throw AppAttestError(code: .invalidCertificate, message: "the leaf key is not an uncompressed point")
    }
    return point
  }

  /// The value (the OCTET STRING's content) of the one extension `oid`; nil when absent,
  /// `invalid_nonce_extension` when it appears twice.
  func extensionValue(oid: String) throws(AppAttestError) -> [UInt8]? {
    guard let object = OBJ_txt2obj(oid, 1) else {
      ERR_clear_error()
      return nil
    }
    defer { ASN1_OBJECT_free(object) }
    let index = X509_get_ext_by_OBJ(pointer, object, -1)
    guard index >= 0, let found = X509_get_ext(pointer, index), let data = X509_EXTENSION_get_data(found)
    else { return nil }
    guard X509_get_ext_by_OBJ(pointer, object, index) < 0 else {
      throw AppAttestError(code: .invalidNonceExtension, message: "extension \(oid) appears twice")
    }
    let length = Int(ASN1_STRING_length(data))
    guard length > 0, let start = ASN1_STRING_get0_data(data) else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: length))
  }

  /// Verifies `self` (the leaf) through `intermediates` to `anchor` at `time` (Unix seconds):
  /// `certificate_not_valid_at_time` when a certificate is expired or not yet valid then,
  /// `untrusted_certificate_chain` for any other failure.
  func verifyChain(
    intermediates: [LibCryptoCertificate], anchor: LibCryptoCertificate, at time: Int64
  ) throws(AppAttestError) {
    guard let store = X509_STORE_new() else {
      throw AppAttestError(code: .untrustedCertificateChain, message: "X509_STORE_new failed")
    }
    defer { X509_STORE_free(store) }
    guard X509_STORE_add_cert(store, anchor.pointer) == 1, let untrusted = OPENSSL_sk_new_null() else {
      ERR_clear_error()
      throw AppAttestError(code: .untrustedCertificateChain, message: "cannot load the trust anchor")
    }
    defer { OPENSSL_sk_free(untrusted) }
    for certificate in intermediates { OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate.pointer)) }
    guard let context = X509_STORE_CTX_new() else {
      throw AppAttestError(code: .untrustedCertificateChain, message: "X509_STORE_CTX_new failed")
    }
    defer { X509_STORE_CTX_free(context) }
    guard X509_STORE_CTX_init(context, store, pointer, untrusted) == 1 else {
      ERR_clear_error()
      throw AppAttestError(code: .untrustedCertificateChain, message: "X509_STORE_CTX_init failed")
    }
    X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(time))
    let verified = withExtendedLifetime(intermediates) { X509_verify_cert(context) }
    guard verified == 1 else {
      let error = X509_STORE_CTX_get_error(context)
      let reason = String(cString: X509_verify_cert_error_string(Int(error)))
      let depth = X509_STORE_CTX_get_error_depth(context)
      ERR_clear_error()
      switch error {
      case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
        throw AppAttestError(
          code: .certificateNotValidAtTime, message: "certificate at depth \(depth): \(reason) at \(time)")
      default:
        throw AppAttestError(code: .untrustedCertificateChain, message: "depth \(depth): \(reason)")
      }
    }
  }
}
#endif
