#if canImport(COpenSSLCrypto)
import AppAttest
import NostrEvent
import NostrPushCore

/// TEST FIXTURE, never production: an `AppAttestProvider` that plays a device's App Attest
/// service with throwaway keys under a `SyntheticAppAttestAuthority` — what a test or a demo hands
/// `GatewayRegistrar` where `DeviceCheckAppAttestProvider` would run on a real device.
///
/// Like the device: one key per installation (made by the first `keyID()`, kept until
/// `discardKey()`), attested under the authority, then assertions whose counter rises by
/// `counterStep` each time (0 plays a cloned or replaying device whose counter does not rise).
/// Attestations and assertions are stamped with `clock`'s time.
public final class SyntheticAppAttestProvider: AppAttestProvider {
  /// The authority the attestations chain to.
  public let authority: SyntheticAppAttestAuthority
  /// The app id the keys are bound to.
  public let appID: AppAttestAppID
  /// The environment whose aaguid attestations carry.
  public let environment: AppAttestEnvironment
  /// How much each assertion's counter rises (1 on a real device).
  public let counterStep: UInt32
  private let clock: UnixClock
  private let state = Locked<State>(State())

  private struct State {
    var current: [UInt8]?
    var keys: [[UInt8]: (key: SyntheticP256Key, counter: UInt32)] = [:]
  }

  /// A device of the app `appID` in `environment`, attesting under `authority` at `clock`'s time.
  public init(
    authority: SyntheticAppAttestAuthority, appID: AppAttestAppID, environment: AppAttestEnvironment,
    clock: UnixClock = .system, counterStep: UInt32 = 1
  ) {
    self.authority = authority
    self.appID = appID
    self.environment = environment
    self.clock = clock
    self.counterStep = counterStep
  }

  /// This installation's key id: the current key's, or a new key's.
  public func keyID() async throws(AppAttestError) -> [UInt8] {
    if let current = state.withLock({ $0.current }) { return current }
    let key = try SyntheticP256Key()
    let keyID = NostrSHA256.hash(try key.point())
    state.withLock {
      $0.keys[keyID] = (key, 0)
      $0.current = keyID
    }
    return keyID
  }

  /// The attestation of `keyID` over `clientDataHash`; `attestation_key_invalid` for a key this
  /// device did not make.
  public func attest(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8] {
    guard let key = state.withLock({ $0.keys[keyID]?.key }) else {
      throw AppAttestError(code: .attestationKeyInvalid, message: "no such key on this device")
    }
    return try authority.attestation(
      of: key, appID: appID, environment: environment, clientDataHash: clientDataHash, at: clock.now())
  }

  /// An assertion by `keyID` over `clientDataHash`: authenticator data with the raised counter, and
  /// the DER ECDSA signature of SHA-256(authenticatorData ‖ clientDataHash).
  public func assert(keyID: [UInt8], clientDataHash: [UInt8]) async throws(AppAttestError) -> [UInt8] {
    let found: (key: SyntheticP256Key, counter: UInt32)? = state.withLock {
      guard var entry = $0.keys[keyID] else { return nil }
      entry.counter &+= counterStep
      $0.keys[keyID] = entry
      return entry
    }
    guard let found else {
      throw AppAttestError(code: .attestationKeyInvalid, message: "no such key on this device")
    }
    let counter = (0..<4).reversed().map { UInt8(found.counter >> (8 * $0) & 0xFF) }
    let authenticatorData = appID.rpIDHash + [0x00] + counter
    let signature = try found.key.sign(NostrSHA256.hash(authenticatorData + clientDataHash))
    return TestCBOR.map([
      ("signature", TestCBOR.bytes(signature)), ("authenticatorData", TestCBOR.bytes(authenticatorData)),
    ])
  }

  /// Forgets the current key: the next `keyID()` makes a new one.
  public func discardKey() async throws(AppAttestError) {
    state.withLock { $0.current = nil }
  }
}
#endif
