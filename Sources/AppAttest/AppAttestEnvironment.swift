/// The App Attest environment an app is configured for, which fixes the aaguid its attestations
/// carry.
public enum AppAttestEnvironment: String, Sendable, CaseIterable {
  /// Development builds: aaguid `appattestdevelop`.
  case development
  /// Production (App Store, TestFlight) builds: aaguid `appattest` followed by seven zero bytes.
  case production

  /// The 16-byte aaguid an attestation in this environment carries.
  public var aaguid: [UInt8] {
    switch self {
    case .development: return Array("appattestdevelop".utf8)
    case .production: return Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
    }
  }
}
