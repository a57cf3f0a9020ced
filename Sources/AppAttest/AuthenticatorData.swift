/// WebAuthn authenticator data as App Attest sends it: rpIdHash (32 bytes), flags (1), sign
/// counter (4, big-endian), then in an attestation the attested credential: aaguid (16),
/// credential id length (2, big-endian) and credential id.
///
/// What follows the credential id (the COSE public key, and any extensions) is not read: the
/// leaf certificate carries the key the verifier uses, and one real capture holds bytes after
/// the key that its flags do not announce, which devices produce and no rule forbids.
public struct AuthenticatorData: Sendable, Equatable {
  /// The fixed part's length: rpIdHash, flags and counter.
  public static let fixedLength = 37
  /// The longest credential id accepted (WebAuthn's limit); App Attest's is 32 bytes.
  public static let maxCredentialIDLength = 1023

  /// SHA-256 of the app id (`TEAMID.bundle.id`).
  public let rpIDHash: [UInt8]
  /// The flags byte.
  public let flags: UInt8
  /// The sign counter.
  public let counter: UInt32
  /// The attested credential's aaguid and id, when the caller asked for them.
  public let credential: (aaguid: [UInt8], id: [UInt8])?

  /// Reads `bytes`; with `attestedCredential` the aaguid and credential id must follow the fixed
  /// part (an attestation), else only the fixed part is read (an assertion: Apple's is exactly
  /// 37 bytes; bytes after the counter break no rule and are not read).
  public init(_ bytes: [UInt8], attestedCredential: Bool) throws(AppAttestError) {
    guard bytes.count >= Self.fixedLength else {
      throw AppAttestError(
        code: .invalidAuthenticatorData, message: "\(bytes.count) bytes, under \(Self.fixedLength)")
    }
    rpIDHash = Array(bytes[0..<32])
    flags = bytes[32]
    counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    guard attestedCredential else {
      credential = nil
      return
    }
    guard bytes.count >= Self.fixedLength + 18 else {
      throw AppAttestError(code: .invalidAuthenticatorData, message: "no attested credential data")
    }
    let length = Int(bytes[53]) << 8 | Int(bytes[54])
    guard length <= Self.maxCredentialIDLength, 55 + length <= bytes.count else {
      throw AppAttestError(
        code: .invalidAuthenticatorData, message: "credential id of \(length) bytes does not fit")
    }
    credential = (Array(bytes[37..<53]), Array(bytes[55..<55 + length]))
  }

  /// Compares every field read.
  public static func == (lhs: AuthenticatorData, rhs: AuthenticatorData) -> Bool {
    lhs.rpIDHash == rhs.rpIDHash && lhs.flags == rhs.flags && lhs.counter == rhs.counter
      && lhs.credential?.aaguid == rhs.credential?.aaguid && lhs.credential?.id == rhs.credential?.id
  }
}
