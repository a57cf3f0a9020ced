import Foundation
import NostrPushCore

#if canImport(CryptoKit)
import CryptoKit
#else
internal import COpenSSLCrypto
#endif

/// The APNs token-auth key (Apple's `AuthKey_<kid>.p8`): an EC P-256 private key in PKCS#8 PEM,
/// checked at load, that signs ES256 (ECDSA P-256 with SHA-256, the JOSE `r‖s` form, 64 bytes).
///
/// On Linux the key lives in OpenSSL's libcrypto (`COpenSSLCrypto`), on Apple hosts in CryptoKit's
/// `P256.Signing`. The PEM text is not kept.
public final class APNsSigningKey: Sendable {
  /// The largest PEM file read: a P-256 PKCS#8 key is about 240 bytes.
  public static let maxPEMBytes = 16 * 1024

  #if canImport(CryptoKit)
  private let key: P256.Signing.PrivateKey
  #else
  private let key: OpenSSLKey
  #endif

  /// Loads `pem` (PKCS#8 `-----BEGIN PRIVATE KEY-----`); `invalid_signing_key` when it is not
  /// an EC P-256 private key.
  public init(pem: [UInt8]) throws(PushGatewayError) {
    guard pem.count <= Self.maxPEMBytes else {
      throw PushGatewayError(code: .invalidSigningKey, message: "over \(Self.maxPEMBytes) bytes")
    }
    guard String(decoding: pem, as: UTF8.self).contains("-----BEGIN PRIVATE KEY-----") else {
      throw PushGatewayError(code: .invalidSigningKey, message: "not a PKCS#8 PEM private key")
    }
    #if canImport(CryptoKit)
    do {
      key = try P256.Signing.PrivateKey(pemRepresentation: String(decoding: pem, as: UTF8.self))
    } catch {
      throw PushGatewayError(code: .invalidSigningKey, message: "not an EC P-256 private key")
    }
    #else
    key = try OpenSSLKey(pem: pem)
    #endif
  }

  /// Loads the PEM file at `path`.
  public convenience init(contentsOf path: String) throws(PushGatewayError) {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw PushGatewayError(code: .invalidSigningKey, field: path, message: "cannot read the file")
    }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: Self.maxPEMBytes + 1)) ?? nil
    try self.init(pem: Array(data ?? Data()))
  }

  /// A fresh P-256 key as PKCS#8 PEM, for a run that reaches no real APNs (the demo, tests): a
  /// real `.p8` comes from Apple's developer account.
  public static func generatePEM() throws(PushGatewayError) -> [UInt8] {
    #if canImport(CryptoKit)
    return Array(P256.Signing.PrivateKey().pemRepresentation.utf8)
    #else
    return try OpenSSLKey.generatePEM()
    #endif
  }

  /// The public half as the 65-byte uncompressed point (`04 ‖ x ‖ y`), which verifies the
  /// provider tokens this key signs.
  public func publicKey() throws(PushGatewayError) -> [UInt8] {
    #if canImport(CryptoKit)
    return Array(key.publicKey.x963Representation)
    #else
    return try key.publicKey()
    #endif
  }

  /// The ES256 signature of `message`: `r‖s`, 32 bytes each.
  public func sign(_ message: [UInt8]) throws(PushGatewayError) -> [UInt8] {
    #if canImport(CryptoKit)
    do {
      return Array(try key.signature(for: message).rawRepresentation)
    } catch {
      throw PushGatewayError(code: .signingFailed, message: "CryptoKit: \(error)")
    }
    #else
    return try key.sign(message)
    #endif
  }
}

#if !canImport(CryptoKit)
/// One `EVP_PKEY` holding an EC P-256 private key, freed in `deinit`.
///
/// `@unchecked Sendable`: the key is never changed after init, and every signature makes its
/// own `EVP_MD_CTX`, which OpenSSL allows from several threads at once.
private final class OpenSSLKey: @unchecked Sendable {
  private let key: OpaquePointer

  init(pem: [UInt8]) throws(PushGatewayError) {
    let loaded: OpaquePointer? = pem.withUnsafeBytes { bytes in
      guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
    }
    ERR_clear_error()
    guard let loaded else {
      throw PushGatewayError(code: .invalidSigningKey, message: "OpenSSL cannot read the PEM private key")
    }
    guard nostrpush_evp_pkey_base_id(loaded) == nostrpush_evp_pkey_ec() else {
      EVP_PKEY_free(loaded)
      throw PushGatewayError(code: .invalidSigningKey, message: "not an elliptic-curve key")
    }
    var name = [CChar](repeating: 0, count: 64)
    var length = 0
    guard EVP_PKEY_get_group_name(loaded, &name, name.count, &length) == 1,
      name[..<min(length, name.count)].map({ UInt8(bitPattern: $0) }) == Array("prime256v1".utf8)
    else {
      EVP_PKEY_free(loaded)
      throw PushGatewayError(code: .invalidSigningKey, message: "not a P-256 key")
    }
    key = loaded
  }

  deinit { EVP_PKEY_free(key) }

  /// A fresh P-256 key written as PKCS#8 PEM.
  static func generatePEM() throws(PushGatewayError) -> [UInt8] {
    guard let generated = nostrpush_ec_p256_generate() else {
      ERR_clear_error()
      throw PushGatewayError(code: .signingFailed, message: "EVP_EC_gen")
    }
    defer { EVP_PKEY_free(generated) }
    guard let bio = BIO_new(BIO_s_mem()) else {
      throw PushGatewayError(code: .signingFailed, message: "BIO_new")
    }
    defer { BIO_free(bio) }
    guard PEM_write_bio_PrivateKey(bio, generated, nil, nil, 0, nil, nil) == 1 else {
      ERR_clear_error()
      throw PushGatewayError(code: .signingFailed, message: "PEM_write_bio_PrivateKey")
    }
    let pending = Int(BIO_ctrl_pending(bio))
    guard pending > 0, pending <= APNsSigningKey.maxPEMBytes else {
      throw PushGatewayError(code: .signingFailed, message: "PEM of \(pending) bytes")
    }
    var pem = [UInt8](repeating: 0, count: pending)
    let read = pem.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
    guard read == Int32(pending) else { throw PushGatewayError(code: .signingFailed, message: "BIO_read") }
    return pem
  }

  /// The uncompressed point: the last 65 bytes of the DER SubjectPublicKeyInfo.
  func publicKey() throws(PushGatewayError) -> [UInt8] {
    let length = i2d_PUBKEY(key, nil)
    guard length >= 65 else { throw PushGatewayError(code: .signingFailed, message: "i2d_PUBKEY") }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer in
      var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
      return i2d_PUBKEY(key, &cursor)
    }
    guard written == length, der[der.count - 65] == 0x04 else {
      throw PushGatewayError(code: .signingFailed, message: "i2d_PUBKEY")
    }
    return Array(der.suffix(65))
  }

  func sign(_ message: [UInt8]) throws(PushGatewayError) -> [UInt8] {
    guard let context = EVP_MD_CTX_new() else {
      throw PushGatewayError(code: .signingFailed, message: "EVP_MD_CTX_new")
    }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
      ERR_clear_error()
      throw PushGatewayError(code: .signingFailed, message: "EVP_DigestSignInit")
    }
    var der = [UInt8](repeating: 0, count: 80)
    var derLength = der.count
    let signed = message.withUnsafeBufferPointer { input in
      EVP_DigestSign(context, &der, &derLength, input.baseAddress, input.count)
    }
    guard signed == 1 else {
      ERR_clear_error()
      throw PushGatewayError(code: .signingFailed, message: "EVP_DigestSign")
    }
    let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
      var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
      return d2i_ECDSA_SIG(nil, &cursor, derLength)
    }
    guard let parsed else { throw PushGatewayError(code: .signingFailed, message: "d2i_ECDSA_SIG") }
    defer { ECDSA_SIG_free(parsed) }
    guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed) else {
      throw PushGatewayError(code: .signingFailed, message: "ECDSA_SIG_get0")
    }
    var raw = [UInt8](repeating: 0, count: 64)
    let written = raw.withUnsafeMutableBufferPointer { output in
      (BN_bn2binpad(r, output.baseAddress, 32), BN_bn2binpad(s, output.baseAddress! + 32, 32))
    }
    guard written.0 == 32, written.1 == 32 else {
      throw PushGatewayError(code: .signingFailed, message: "BN_bn2binpad")
    }
    return raw
  }
}
#endif
