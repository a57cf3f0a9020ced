// Compiled wherever DeviceCheck exists (iOS, macOS, visionOS, …); elsewhere this file is empty.
// On Linux the project's Apple check type-checks it against DeviceCheck stubs (step C).
#if canImport(DeviceCheck)
import AppAttest
import DeviceCheck
import Foundation

/// The `AppAttestProvider` of a real Apple device, over `DCAppAttestService`: one key per
/// installation, its id kept in `store` (the app's Keychain), attested once, asserting per call.
///
/// `isSupported` false (simulators, extensions, old devices) → `attestation_unsupported` from
/// every method, never a silent skip: the caller decides whether to register without App Attest
/// (which a gateway with `app_attest` refuses). `DCError.invalidKey` → `attestation_key_invalid`
/// (discard the key and register again); any other failure → `attestation_service_failed`.
///
/// Decision: the Keychain item itself is the app's (`AppAttestKeyIDStore`), because its access
/// group and accessibility are the app's choice and this module does not link Security.
public struct DeviceCheckAppAttestProvider: AppAttestProvider {
  /// Where the key id is kept between launches.
  public let store: any AppAttestKeyIDStore

  /// A provider keeping its key id in `store`.
  public init(store: any AppAttestKeyIDStore) {
    self.store = store
  }

  /// Whether this device can attest (`DCAppAttestService.shared.isSupported`).
  public static var isSupported: Bool { DCAppAttestService.shared.isSupported }

  /// The stored key id, or a new key's (generated, then stored).
  public func keyID() async throws(AppAttestError) -> [UInt8] {
    try Self.requireSupport()
    if let stored = try await store.loadKeyID() { return try Self.decode(stored) }
    let generated: String
    do {
      generated = try await DCAppAttestService.shared.generateKey()
    } catch {
      throw Self.mapped(error, during: "generateKey")
    }
    let keyID = try Self.decode(generated)
    try await store.saveKeyID(generated)
    return keyID
  }

  /// `DCAppAttestService.attestKey` of `keyID` over `clientDataHash`.
  public func attest(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8] {
    try Self.requireSupport()
    do {
      let data = try await DCAppAttestService.shared.attestKey(
        AppAttestBase64.encoded(keyID), clientDataHash: Data(clientDataHash))
      return [UInt8](data)
    } catch {
      throw Self.mapped(error, during: "attestKey")
    }
  }

  /// `DCAppAttestService.generateAssertion` by `keyID` over `clientDataHash`.
  public func assert(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8] {
    try Self.requireSupport()
    do {
      let data = try await DCAppAttestService.shared.generateAssertion(
        AppAttestBase64.encoded(keyID), clientDataHash: Data(clientDataHash))
      return [UInt8](data)
    } catch {
      throw Self.mapped(error, during: "generateAssertion")
    }
  }

  /// Removes the stored key id (the key itself cannot be deleted; Apple drops unused keys).
  public func discardKey() async throws(AppAttestError) {
    try await store.saveKeyID(nil)
  }

  private static func requireSupport() throws(AppAttestError) {
    guard DCAppAttestService.shared.isSupported else {
      throw AppAttestError(
        code: .attestationUnsupported, message: "DCAppAttestService.isSupported is false on this device")
    }
  }

  /// A key id as `DCAppAttestService` spells it (base64 of 32 bytes).
  private static func decode(_ keyID: String) throws(AppAttestError) -> [UInt8] {
    guard let bytes = AppAttestBase64.decode(keyID), bytes.count == 32 else {
      throw AppAttestError(code: .attestationKeyInvalid, message: "the key id is not 32 bytes of base64")
    }
    return bytes
  }

  private static func mapped(_ error: any Error, during call: String) -> AppAttestError {
    if let appAttest = error as? AppAttestError { return appAttest }
    if case DCError.invalidKey = error {
      return AppAttestError(code: .attestationKeyInvalid, message: "\(call): the key is invalid")
    }
    if case DCError.featureUnsupported = error {
      return AppAttestError(code: .attestationUnsupported, message: "\(call): App Attest is unsupported")
    }
    return AppAttestError(code: .attestationServiceFailed, message: "\(call): \(error)")
  }
}
#endif
