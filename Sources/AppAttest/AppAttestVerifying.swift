/// What the gateway needs of an App Attest verifier: an attestation, then assertions. A
/// platform-neutral seam, so the gateway compiles where `AppAttestVerifier` (libcrypto, Linux)
/// does not exist; `AppAttestVerifier` is the implementation.
public protocol AppAttestVerifying: Sendable {
  /// Verifies an attestation of `keyID` over `clientDataHash` at `time` (Unix seconds); the
  /// attested key, else the failing step's error.
  func verifyAttestation(_ attestation: [UInt8], keyID: [UInt8], clientDataHash: [UInt8], at time: Int64)
    throws(AppAttestError) -> AppAttestAttestedKey
  /// Verifies an assertion over `clientData` by `publicKey` above `previousCounter`; its counter,
  /// else the failing step's error.
  func verifyAssertion(_ assertion: [UInt8], clientData: [UInt8], publicKey: [UInt8], previousCounter: UInt32)
    throws(AppAttestError) -> UInt32
}
