#if canImport(COpenSSLCrypto)
import NostrEvent

/// Verifies App Attest attestations and assertions for one app and environment, as Apple's
/// "Validating apps that connect to your server" describes, on libcrypto.
///
/// Linux only (`COpenSSLCrypto`): the gateway runs on Linux. An Apple host could verify with
/// Security.framework, which this module does not do; there it holds the CBOR reader and the data
/// types only.
///
/// Stateless: the caller stores what an attestation yields (`AppAttestAttestedKey`) and, for each
/// assertion, passes the stored counter and stores the returned one — in one transaction with the
/// check, so that two racing assertions with the same counter cannot both pass.
public struct AppAttestVerifier: AppAttestVerifying {
  /// The app id (`TEAMID.bundle.id`) authenticator data must name.
  public let appID: AppAttestAppID
  /// The environment whose aaguid attestations must carry.
  public let environment: AppAttestEnvironment
  /// The root the `x5c` chain must verify to.
  public let trustAnchor: AppAttestTrustAnchor

  /// The largest client data hash accepted: a SHA-256 is 32 bytes, but Apple's documentation
  /// samples pass a raw challenge in its place, so any length from 1 to this is taken.
  public static let maxClientDataHashBytes = 1024
  /// The largest client data accepted by `verifyAssertion`.
  public static let maxClientDataBytes = 64 * 1024

  /// A verifier for `appID` in `environment`, trusting `trustAnchor` (Apple's root in production).
  public init(appID: AppAttestAppID, environment: AppAttestEnvironment, trustAnchor: AppAttestTrustAnchor) {
    self.appID = appID
    self.environment = environment
    self.trustAnchor = trustAnchor
  }

  /// Verifies `attestation` (the CBOR `DCAppAttestService.attestKey` returned) for the key
  /// `keyID` (32 bytes, as sent, decoded) and `clientDataHash` (normally SHA-256 of the client
  /// data the server built; see `maxClientDataHashBytes`) at `time` (Unix seconds); the attested
  /// key, receipt and counter 0, else the first failing step's error:
  ///
  /// 1. the format (`invalid_attestation_format`), then the `x5c` chain (leaf, intermediate) to
  ///    the trust anchor at `time` (`invalid_certificate`, `certificate_not_valid_at_time`,
  ///    `untrusted_certificate_chain`);
  /// 2. the leaf's extension 1.2.840.113635.100.8.2 holds SHA-256(authData ‖ clientDataHash)
  ///    (`invalid_nonce_extension`, `nonce_mismatch`);
  /// 3. SHA-256 of the leaf's uncompressed public key is `keyID` (`key_id_mismatch`);
  /// 4. authData's rpIdHash is SHA-256 of the app id (`rp_id_mismatch`), its counter 0
  ///    (`counter_not_zero`), its aaguid the environment's (`aaguid_mismatch`), its credential id
  ///    `keyID` (`credential_id_mismatch`).
  ///
  /// Bytes after the credential id in authData (the COSE key, and anything a device appends
  /// that its flags do not announce) are not read: the leaf certificate carries the key.
  public func verifyAttestation(
    _ attestation: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], at time: Int64
  ) throws(AppAttestError) -> AppAttestAttestedKey {
    guard keyID.count == 32 else {
      throw AppAttestError(code: .invalidKeyID, message: "\(keyID.count) bytes, not 32")
    }
    guard (1...Self.maxClientDataHashBytes).contains(clientDataHash.count) else {
      throw AppAttestError(
        code: .invalidClientData, message: "client data hash of \(clientDataHash.count) bytes")
    }
    let object = try CBORReader.decode(attestation)
    guard object["fmt"]?.textString == "apple-appattest", let statement = object["attStmt"],
      let chain = statement["x5c"]?.arrayItems, chain.count == 2,
      let leafDER = chain[0].byteString, let intermediateDER = chain[1].byteString,
      let receipt = statement["receipt"]?.byteString, let authBytes = object["authData"]?.byteString
    else {
      throw AppAttestError(
        code: .invalidAttestationFormat,
        message: "not {fmt: apple-appattest, attStmt: {x5c: [leaf, intermediate], receipt}, authData}")
    }
    let leaf = try LibCryptoCertificate(der: leafDER)
    let intermediate = try LibCryptoCertificate(der: intermediateDER)
    try leaf.verifyChain(intermediates: [intermediate], anchor: trustAnchor.certificate, at: time)

    guard let extensionValue = try leaf.extensionValue(oid: NonceExtension.oid) else {
      throw AppAttestError(code: .invalidNonceExtension, message: "the leaf has no \(NonceExtension.oid)")
    }
    let nonce = try NonceExtension.nonce(fromDER: extensionValue)
    guard nonce == NostrSHA256.hash(authBytes + clientDataHash) else {
      throw AppAttestError(
        code: .nonceMismatch, message: "the leaf's nonce is not SHA-256(authData ‖ clientDataHash)")
    }

    let publicKey = try leaf.p256PublicKey()
    guard NostrSHA256.hash(publicKey) == keyID else {
      throw AppAttestError(code: .keyIDMismatch, message: "SHA-256 of the leaf's key is not the key id")
    }

    let authData = try AuthenticatorData(authBytes, attestedCredential: true)
    guard authData.rpIDHash == appID.rpIDHash else {
      throw AppAttestError(code: .rpIDMismatch, message: "rpIdHash is not SHA-256(\(appID))")
    }
    guard authData.counter == 0 else {
      throw AppAttestError(code: .counterNotZero, message: "counter \(authData.counter)")
    }
    guard let credential = authData.credential, credential.aaguid == environment.aaguid else {
      throw AppAttestError(code: .aaguidMismatch, message: "aaguid is not \(environment.rawValue)'s")
    }
    guard credential.id == keyID else {
      throw AppAttestError(code: .credentialIDMismatch, message: "the credential id is not the key id")
    }
    return AppAttestAttestedKey(keyID: keyID, publicKey: publicKey, receipt: receipt, counter: 0)
  }

  /// `verifyAttestation` with the client data hash SHA-256(`clientData`).
  public func verifyAttestation(
    _ attestation: [UInt8], keyID: [UInt8], clientData: [UInt8], at time: Int64
  ) throws(AppAttestError) -> AppAttestAttestedKey {
    guard clientData.count <= Self.maxClientDataBytes else {
      throw AppAttestError(code: .invalidClientData, message: "client data of \(clientData.count) bytes")
    }
    return try verifyAttestation(
      attestation, keyID: keyID, clientDataHash: NostrSHA256.hash(clientData), at: time)
  }

  /// Verifies `assertion` (the CBOR `{signature, authenticatorData}` of
  /// `DCAppAttestService.generateAssertion`) over `clientData` with the stored `publicKey` (an
  /// uncompressed P-256 point) and the stored `previousCounter`; the assertion's counter, which
  /// the caller stores in the same transaction as this check, else the first failing step's error:
  /// the format (`invalid_assertion_format`, `invalid_authenticator_data`), the DER ECDSA P-256
  /// signature over nonce = SHA-256(authenticatorData ‖ SHA-256(clientData))
  /// (`invalid_public_key`, `invalid_signature`), rpIdHash (`rp_id_mismatch`), the counter
  /// strictly greater than `previousCounter` (`counter_not_increasing`).
  public func verifyAssertion(
    _ assertion: [UInt8], clientData: [UInt8], publicKey: [UInt8], previousCounter: UInt32
  ) throws(AppAttestError) -> UInt32 {
    guard !clientData.isEmpty, clientData.count <= Self.maxClientDataBytes else {
      throw AppAttestError(code: .invalidClientData, message: "client data of \(clientData.count) bytes")
    }
    let object = try CBORReader.decode(assertion)
    guard let signature = object["signature"]?.byteString,
      let authBytes = object["authenticatorData"]?.byteString
    else {
      throw AppAttestError(code: .invalidAssertionFormat, message: "not {signature, authenticatorData}")
    }
    let authData = try AuthenticatorData(authBytes, attestedCredential: false)
    let nonce = NostrSHA256.hash(authBytes + NostrSHA256.hash(clientData))
    guard try LibCryptoP256Verifier.verify(signature: signature, message: nonce, publicKey: publicKey) else {
      throw AppAttestError(code: .invalidSignature, message: "the signature does not verify over the nonce")
    }
    guard authData.rpIDHash == appID.rpIDHash else {
      throw AppAttestError(code: .rpIDMismatch, message: "rpIdHash is not SHA-256(\(appID))")
    }
    guard authData.counter > previousCounter else {
      throw AppAttestError(
        code: .counterNotIncreasing, message: "counter \(authData.counter), stored \(previousCounter)")
    }
    return authData.counter
  }
}
#endif
