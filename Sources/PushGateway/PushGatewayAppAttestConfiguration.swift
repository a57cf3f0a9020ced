import AppAttest
import NostrPushCore

/// An app's `app_attest` block (`apps[i].app_attest`): the app requires App Attest, and this is
/// how its attestations are checked.
///
/// ```json
/// "app_attest":{"app_id":"TEAM123456.org.example.chat","environment":"production"}
/// ```
///
/// - `app_id` (required): `TEAMID.bundle.id`, whose SHA-256 authenticator data must carry.
/// - `environment` (required): `production` (App Store and TestFlight builds: aaguid `appattest`
///   and seven zero bytes) or `development` (aaguid `appattestdevelop`).
/// - `root` (optional): a PEM (or DER) certificate file the attestation chains must verify to
///   instead of Apple's App Attestation Root CA, for tests and demos with a throwaway root.
///   Without it the root is the one embedded in the binary (`AppAttestTrustAnchor.apple()`),
///   never read from a file.
///
/// Decisions where the spec is silent: one environment per app (development builds use APNs's
/// sandbox, so they are an app profile of their own anyway); the app id is not compared with the
/// APNs topic (a team may push under another bundle id's topic); the block is Linux only, like
/// the verifier (libcrypto), and refused elsewhere.
public struct PushGatewayAppAttestConfiguration: Sendable {
  /// The app id attestations and assertions are bound to.
  public let appID: AppAttestAppID
  /// The environment whose aaguid attestations must carry.
  public let environment: AppAttestEnvironment
  /// The `root` file read (resolved), nil when the root is Apple's.
  public let rootFile: String?
  /// The verifier the gateway checks this app's attestations and assertions with.
  public let verifier: any AppAttestVerifying

  /// Reads `app_attest` of `app` (nil when absent), reading `root` relative to `base`.
  static func read(_ app: ConfigurationObject, base: String?) throws(PushGatewayConfigurationError)
    -> PushGatewayAppAttestConfiguration?
  {
    guard let object = try app.object("app_attest", allowed: ["app_id", "environment", "root"]) else {
      return nil
    }
    let appIDText = try object.requiredString("app_id", maxBytes: 255)
    let appID: AppAttestAppID
    do {
      appID = try AppAttestAppID(appIDText)
    } catch {
      throw object.refuse("app_id", "must be TEAMID.bundle.id (printable ASCII, a dot)")
    }
    let environmentText = try object.requiredString("environment", maxBytes: 32)
    guard let environment = AppAttestEnvironment(rawValue: environmentText) else {
      throw object.refuse("environment", "must be production or development")
    }
    let rootFile = try object.string("root").map { PushGatewayConfiguration.resolve($0, base: base) }
    #if canImport(COpenSSLCrypto)
    let anchor: AppAttestTrustAnchor
    if let rootFile {
      let bytes = try SecretFile.read(
        rootFile, field: object.field("root"), maxBytes: AppAttestTrustAnchor.maxBytes, secret: false)
      do {
        anchor = try AppAttestTrustAnchor(certificate: bytes)
      } catch {
        throw object.refuse("root", "must be one X.509 certificate, PEM or DER")
      }
    } else {
      do {
        anchor = try AppAttestTrustAnchor.apple()
      } catch {
        throw object.refuse("root", "Apple's embedded root did not parse: \(error.message)")
      }
    }
    let verifier = AppAttestVerifier(appID: appID, environment: environment, trustAnchor: anchor)
    return PushGatewayAppAttestConfiguration(
      appID: appID, environment: environment, rootFile: rootFile, verifier: verifier)
    #else
    throw app.refuse("app_attest", "needs the gateway's libcrypto verifier (Linux)")
    #endif
  }

  private init(
    appID: AppAttestAppID, environment: AppAttestEnvironment, rootFile: String?,
    verifier: any AppAttestVerifying
  ) {
    self.appID = appID
    self.environment = environment
    self.rootFile = rootFile
    self.verifier = verifier
  }
}
