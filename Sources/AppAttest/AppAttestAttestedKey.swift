/// What a verified attestation yields, for the caller to store with the key id: the key that
/// verifies the installation's assertions, Apple's receipt, and the counter (0).
public struct AppAttestAttestedKey: Sendable, Equatable {
  /// The key id: SHA-256 of `publicKey`, 32 bytes.
  public let keyID: [UInt8]
  /// The attested key, an uncompressed P-256 point (`04 ‖ x ‖ y`, 65 bytes).
  public let publicKey: [UInt8]
  /// Apple's receipt from `attStmt`, for a later fraud-metric refresh.
  public let receipt: [UInt8]
  /// The sign counter, 0 after an attestation; assertions must rise above the stored value.
  public let counter: UInt32
}
