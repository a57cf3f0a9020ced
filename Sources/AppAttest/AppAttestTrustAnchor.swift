#if canImport(COpenSSLCrypto)
/// The root certificate an attestation's `x5c` chain must verify to: Apple's App Attestation
/// Root CA in production (`apple()`), a test root in tests and demos (the gateway's trust anchor
/// is configuration).
///
/// Linux only (libcrypto through `COpenSSLCrypto`), like `AppAttestVerifier`: the gateway runs
/// on Linux. On Apple hosts the module holds the CBOR reader and the data types only.
public final class AppAttestTrustAnchor: Sendable {
  /// Apple's App Attestation Root CA (Apple PKI, `Apple_App_Attestation_Root_CA.pem`): P-384,
  /// valid 2020-03-18 to 2045-03-15, SHA-256 of the DER
  /// 1CB9823BA28BA6AD2D33A006941DE2AE4F513EF1D4E831B9F7E0FA7B6242C932.
  public static let applePEM = """
    -----BEGIN CERTIFICATE-----
    MIICITCCAaegAwIBAgIQC/O+DvHN0uD7jG5yH2IXmDAKBggqhkjOPQQDAzBSMSYw
    JAYDVQQDDB1BcHBsZSBBcHAgQXR0ZXN0YXRpb24gUm9vdCBDQTETMBEGA1UECgwK
    QXBwbGUgSW5jLjETMBEGA1UECAwKQ2FsaWZvcm5pYTAeFw0yMDAzMTgxODMyNTNa
    Fw00NTAzMTUwMDAwMDBaMFIxJjAkBgNVBAMMHUFwcGxlIEFwcCBBdHRlc3RhdGlv
    biBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJbmMuMRMwEQYDVQQIDApDYWxpZm9y
    bmlhMHYwEAYHKoZIzj0CAQYFK4EEACIDYgAERTHhmLW07ATaFQIEVwTtT4dyctdh
    NbJhFs/Ii2FdCgAHGbpphY3+d8qjuDngIN3WVhQUBHAoMeQ/cLiP1sOUtgjqK9au
    Yen1mMEvRq9Sk3Jm5X8U62H+xTD3FE9TgS41o0IwQDAPBgNVHRMBAf8EBTADAQH/
    MB0GA1UdDgQWBBSskRBTM72+aEH/pwyp5frq5eWKoTAOBgNVHQ8BAf8EBAMCAQYw
    CgYIKoZIzj0EAwMDaAAwZQIwQgFGnByvsiVbpTKwSga0kP0e8EeDS4+sQmTvb7vn
    53O5+FRXgeLhpJ06ysC5PrOyAjEAp5U4xDgEgllF7En3VcE3iexZZtKeYnpqtijV
    oyFraWVIyd/dganmrduC1bmTBGwD
    -----END CERTIFICATE-----
    """

  /// The largest PEM or DER input read.
  public static let maxBytes = 16 * 1024

  let certificate: LibCryptoCertificate

  /// Apple's App Attestation Root CA, parsed from `applePEM`.
  public static func apple() throws(AppAttestError) -> AppAttestTrustAnchor {
    try AppAttestTrustAnchor(certificate: Array(applePEM.utf8))
  }

  /// Reads one certificate, PEM (`-----BEGIN CERTIFICATE-----`) or DER; `invalid_trust_anchor`
  /// otherwise.
  public init(certificate bytes: [UInt8]) throws(AppAttestError) {
    guard bytes.count <= Self.maxBytes else {
      throw AppAttestError(code: .invalidTrustAnchor, message: "over \(Self.maxBytes) bytes")
    }
    do {
      if String(decoding: bytes.prefix(4096), as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") {
        certificate = try LibCryptoCertificate(pem: bytes)
      } else {
        certificate = try LibCryptoCertificate(der: bytes)
      }
    } catch {
      throw AppAttestError(code: .invalidTrustAnchor, message: "not one X.509 certificate in PEM or DER")
    }
  }

  /// The certificate's DER encoding.
  public var der: [UInt8] { certificate.der }
}
#endif
