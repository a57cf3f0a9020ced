/// The app's side of App Attest, as `GatewayRegistrar` uses it: the one seam between the
/// registrar (platform-neutral) and the device's attestation service.
///
/// On Apple devices `DeviceCheckAppAttestProvider` (module `NotificationService`) implements it
/// over `DCAppAttestService`; tests and demos implement it with a throwaway key under a test root
/// that their gateway is configured to trust.
///
/// The registrar's flow: `keyID()` (made once per installation and kept), then `attest` once,
/// with the installation transcript's hash, when it registers; `assert` with each later
/// request's transcript hash. `attestation_key_invalid` from any of them means the key is gone:
/// call `discardKey()`, then register again (a new key, a new attestation).
public protocol AppAttestProvider: Sendable {
  /// This installation's App Attest key id (32 bytes, SHA-256 of the key): the stored one, or a
  /// new key's, stored before it is returned. `attestation_unsupported` where the device has no
  /// App Attest.
  func keyID() async throws(AppAttestError) -> [UInt8]

  /// The attestation (CBOR, as Apple returns it) of the key `keyID` over `clientDataHash`.
  func attest(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8]

  /// An assertion (CBOR `{signature, authenticatorData}`) by the key `keyID` over
  /// `clientDataHash`.
  func assert(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8]

  /// Forgets the stored key id, so that the next `keyID()` makes a new key.
  func discardKey() async throws(AppAttestError)
}

/// Where a provider keeps its key id between launches: the app's Keychain on Apple devices (a
/// generic-password item of the app's own, readable after first unlock), a file or memory in
/// tests. The id is not a secret (it is a hash of a public key), but it must survive as long as
/// the installation's registration does.
public protocol AppAttestKeyIDStore: Sendable {
  /// The stored key id (as `DCAppAttestService` returned it, base64), nil when none is stored.
  func loadKeyID() async throws(AppAttestError) -> String?
  /// Stores `keyID`, or removes the stored one when nil.
  func saveKeyID(_ keyID: String?) async throws(AppAttestError)
}
