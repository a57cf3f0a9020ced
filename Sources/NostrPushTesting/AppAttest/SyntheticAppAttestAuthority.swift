#if canImport(COpenSSLCrypto)
import AppAttest
import Foundation
import NostrEvent
internal import COpenSSLCrypto

/// TEST FIXTURE, never production: a throwaway App Attest certificate authority made in memory by
/// libcrypto — a root and an intermediate (P-256) — that issues attestations the way Apple's
/// service does: a leaf certificate for the device key carrying the nonce extension
/// 1.2.840.113635.100.8.2 = SHA-256(authData ‖ clientDataHash), and the CBOR
/// `{fmt: apple-appattest, attStmt: {x5c: [leaf, intermediate], receipt}, authData}`.
///
/// A gateway trusts it through its configuration (`app_attest.root`, or an `AppAttestVerifier`
/// with `AppAttestTrustAnchor(certificate: rootPEM)`); production pins Apple's root. The authority
/// only makes material: it holds no verification rule of its own.
///
/// Validity is explicit, so a run on a fixed clock (a demo's `now`) gets certificates valid then:
/// the root and the intermediate from `notBefore` for `days`, each leaf an hour either side of
/// the attestation time.
public final class SyntheticAppAttestAuthority: Sendable {
  /// The root's subject and issuer common name.
  public static let rootName = "Synthetic App Attest Root"
  /// The intermediate's common name.
  public static let intermediateName = "Synthetic App Attest CA 1"

  /// The root certificate, DER.
  public let rootDER: [UInt8]
  /// The root certificate, PEM (what a gateway configuration's `app_attest.root` file holds).
  public let rootPEM: [UInt8]
  /// The intermediate certificate, DER (the second certificate of every `x5c`).
  public let intermediateDER: [UInt8]
  private let intermediateKey: SyntheticP256Key

  /// A root and an intermediate valid from `notBefore` (Unix seconds) for `days`.
  public init(notBefore: Int64, days: Int = 3650) throws(AppAttestError) {
    let rootKey = try SyntheticP256Key()
    intermediateKey = try SyntheticP256Key()
    let notAfter = notBefore + Int64(days) * 86_400
    rootDER = try Self.certificate(
      subject: Self.rootName, issuer: Self.rootName, key: rootKey, signer: rootKey, serial: 1,
      validity: notBefore...notAfter, extensions: Self.authorityExtensions)
    intermediateDER = try Self.certificate(
      subject: Self.intermediateName, issuer: Self.rootName, key: intermediateKey, signer: rootKey, serial: 2,
      validity: notBefore...notAfter, extensions: Self.authorityExtensions)
    let base64 = Data(rootDER).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    rootPEM = Array("-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n".utf8)
  }

  /// The attestation of `key` (a device key of a `SyntheticAppAttestProvider`) for `appID` in
  /// `environment` over `clientDataHash`, its leaf valid an hour either side of `time`.
  func attestation(
    of key: SyntheticP256Key, appID: AppAttestAppID, environment: AppAttestEnvironment,
    clientDataHash: [UInt8], at time: Int64
  ) throws(AppAttestError) -> [UInt8] {
    let point = try key.point()
    let keyID = NostrSHA256.hash(point)
    let authData =
      appID.rpIDHash + [0x40] + [0, 0, 0, 0] + environment.aaguid + [0, 32] + keyID + Self.coseKey(point)
    let nonce = NostrSHA256.hash(authData + clientDataHash)
    let leaf = try Self.certificate(
      subject: Hex.encode(keyID), issuer: Self.intermediateName, key: key, signer: intermediateKey,
      serial: 3, validity: (time - 3600)...(time + 3600),
      extensions: [
        ("2.5.29.19", true, [0x30, 0x00]),  // basicConstraints CA:FALSE
        ("2.5.29.15", true, [0x03, 0x02, 0x07, 0x80]),  // keyUsage digitalSignature
        ("1.2.840.113635.100.8.2", false, [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce),
      ])
    return TestCBOR.map([
      ("fmt", TestCBOR.text("apple-appattest")),
      (
        "attStmt",
        TestCBOR.map([
          ("x5c", TestCBOR.array([TestCBOR.bytes(leaf), TestCBOR.bytes(intermediateDER)])),
          ("receipt", TestCBOR.bytes(Array("synthetic receipt".utf8))),
        ])
      ),
      ("authData", TestCBOR.bytes(authData)),
    ])
  }

  /// basicConstraints CA:TRUE and keyUsage keyCertSign, cRLSign, both critical.
  private static let authorityExtensions: [(String, Bool, [UInt8])] = [
    ("2.5.29.19", true, [0x30, 0x03, 0x01, 0x01, 0xFF]), ("2.5.29.15", true, [0x03, 0x02, 0x01, 0x06]),
  ]

  /// The COSE_Key of `point` (EC2, ES256, P-256, x, y), as authenticator data carries it.
  private static func coseKey(_ point: [UInt8]) -> [UInt8] {
    TestCBOR.header(5, 5) + TestCBOR.header(0, 1) + TestCBOR.header(0, 2) + TestCBOR.header(0, 3)
      + TestCBOR.header(1, 6) + TestCBOR.header(1, 0) + TestCBOR.header(0, 1) + TestCBOR.header(1, 1)
      + TestCBOR.bytes(Array(point[1..<33])) + TestCBOR.header(1, 2) + TestCBOR.bytes(Array(point[33..<65]))
  }

  /// A v3 certificate of `key` named `subject`, issued by `issuer` and signed by `signer`
  /// (ECDSA with SHA-256), with `extensions` (OID, critical, DER value); its DER.
  private static func certificate(
    subject: String, issuer: String, key: SyntheticP256Key, signer: SyntheticP256Key, serial: Int,
    validity: ClosedRange<Int64>, extensions: [(String, Bool, [UInt8])]
  ) throws(AppAttestError) -> [UInt8] {
    guard let certificate = X509_new() else { throw failure("X509_new") }
    defer { X509_free(certificate) }
    guard X509_set_version(certificate, 2) == 1,
      ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial) == 1,
      ASN1_TIME_set(X509_getm_notBefore(certificate), time_t(validity.lowerBound)) != nil,
      ASN1_TIME_set(X509_getm_notAfter(certificate), time_t(validity.upperBound)) != nil,
      X509_set_pubkey(certificate, key.pointer) == 1
    else { throw failure("X509 fields") }
    for (name, setter) in [(subject, X509_set_subject_name), (issuer, X509_set_issuer_name)] {
      guard let x509Name = X509_NAME_new() else { throw failure("X509_NAME_new") }
      defer { X509_NAME_free(x509Name) }
      let added = Array(name.utf8).withUnsafeBufferPointer { bytes in
        // 0x1001 is MBSTRING_ASC.
        X509_NAME_add_entry_by_txt(x509Name, "CN", 0x1001, bytes.baseAddress, Int32(bytes.count), -1, 0)
      }
      guard added == 1, setter(certificate, x509Name) == 1 else { throw failure("X509_NAME") }
    }
    for (oid, critical, der) in extensions {
      guard let object = OBJ_txt2obj(oid, 1) else { throw failure("OBJ_txt2obj") }
      defer { ASN1_OBJECT_free(object) }
      guard let value = ASN1_OCTET_STRING_new() else { throw failure("ASN1_OCTET_STRING_new") }
      defer { ASN1_OCTET_STRING_free(value) }
      let set = der.withUnsafeBufferPointer { ASN1_OCTET_STRING_set(value, $0.baseAddress, Int32($0.count)) }
      guard set == 1, let made = X509_EXTENSION_create_by_OBJ(nil, object, critical ? 1 : 0, value) else {
        throw failure("X509_EXTENSION_create_by_OBJ")
      }
      defer { X509_EXTENSION_free(made) }
      guard X509_add_ext(certificate, made, -1) == 1 else { throw failure("X509_add_ext") }
    }
    guard X509_sign(certificate, signer.pointer, EVP_sha256()) > 0 else { throw failure("X509_sign") }
    var output: UnsafeMutablePointer<UInt8>? = nil
    let count = i2d_X509(certificate, &output)
    guard count > 0, let output else { throw failure("i2d_X509") }
    defer { CRYPTO_free(output, nil, 0) }
    return Array(UnsafeBufferPointer(start: output, count: Int(count)))
  }

  private static func failure(_ call: String) -> AppAttestError {
    ERR_clear_error()
    return AppAttestError(code: .attestationServiceFailed, message: "\(call) failed")
  }
}
#endif
