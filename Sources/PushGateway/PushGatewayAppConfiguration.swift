import NostrCurlHTTP
import NostrHTTP
import NostrJSON
import NostrPushCore

/// One app of a gateway configuration (`apps[i]`): its `app_profile`, topic, environment, loaded
/// credential and the wake's alert text, all checked at start.
///
/// The alert text is the Notification Service Extension's fallback: what the device shows when
/// the extension cannot resolve the wake in time, never message content.
public struct PushGatewayAppConfiguration: Sendable {
  /// The longest `app_profile`, in bytes.
  public static let maxProfileBytes = 64
  /// The largest APNs key or certificate file read, in bytes.
  static let maxPEMBytes = 64 * 1024

  /// How the gateway authenticates to APNs for this app, loaded.
  public enum Authentication: Sendable {
    /// Token auth: the p8 key (checked EC P-256), its key id and team id.
    case token(key: APNsSigningKey, keyID: APNsIdentifier, teamID: APNsIdentifier)
    /// Certificate auth: the PEM certificate and private key files libcurl presents.
    case certificate(CurlClientCertificate)
  }

  /// The `app_profile` leases and registrations name (1 to 64 of `A–Z a–z 0–9 . _ -`).
  public let appProfile: String
  /// The credential.
  public let authentication: Authentication
  /// The alert title of the wake.
  public let alertTitle: String
  /// The alert body of the wake.
  public let alertBody: String
  /// The app's App Attest requirement (`app_attest`), nil when it registers by NIP-98 alone.
  public let appAttest: PushGatewayAppAttestConfiguration?
  /// The app built with an in-memory provider-token slot: topic, environment and the constant
  /// wake body, checked ≤ 4096 bytes.
  public let app: APNsApp

  /// The app with its provider tokens kept in `tokenSlot` (the store's, so replicas share one
  /// token), timed by `clock`. Cannot fail for a configuration that parsed; typed all the same.
  public func apnsApp(tokenSlot: any APNsProviderTokenSlot, clock: UnixClock = .system)
    throws(PushGatewayError) -> APNsApp
  {
    try APNsApp(
      topic: app.topic, environment: app.environment,
      credential: Self.credential(authentication, slot: tokenSlot, clock: clock), alertTitle: alertTitle,
      alertBody: alertBody)
  }

  /// The libcurl transport for this app: to `override` (a loopback stand-in, with its CA) when
  /// given, else to the app's APNs environment; presenting the client certificate under
  /// certificate auth.
  public func apnsTransport(override: PushGatewayConfiguration.APNsOverride?) throws(HTTPTransportError)
    -> CurlAPNsTransport
  {
    var certificate: CurlClientCertificate? = nil
    if case .certificate(let pair) = authentication { certificate = pair }
    let client = try CurlHTTPClient(caFile: override?.caFile, clientCertificate: certificate)
    return CurlAPNsTransport(client: client, origin: override?.origin ?? app.environment.origin)
  }

  /// Reads `apps[index]`, loading its credential files (`base` resolves relative paths).
  init(_ value: JSONValue, path: String, base: String?) throws(PushGatewayConfigurationError) {
    let object = try ConfigurationObject(
      value, path: path, allowed: ["app_profile", "topic", "environment", "auth", "alert", "app_attest"])
    let profile = try object.requiredString("app_profile", maxBytes: Self.maxProfileBytes)
    guard profile.utf8.allSatisfy(Self.isProfileByte) else {
      throw object.refuse("app_profile", "may hold only A–Z a–z 0–9 . _ -")
    }
    let environmentText = try object.requiredString("environment", maxBytes: 32)
    guard let environment = APNsEnvironment(rawValue: environmentText) else {
      throw object.refuse("environment", "must be production or sandbox")
    }
    let authentication = try Self.authentication(object, base: base)
    guard let alert = try object.object("alert", allowed: ["title", "body"]) else {
      throw object.refuse("alert", "is required")
    }
    let title = try alert.requiredString("title")
    let body = try alert.requiredString("body")
    let topic = try object.requiredString("topic", maxBytes: APNsApp.maxTopicBytes)
    do {
      app = try APNsApp(
        topic: topic, environment: environment,
        credential: Self.credential(authentication, slot: InMemoryAPNsProviderTokenSlot(), clock: .system),
        alertTitle: title, alertBody: body)
    } catch {
      let member = error.field == "alert" ? "alert" : "topic"
      throw object.refuse(member, error.message)
    }
    self.appAttest = try PushGatewayAppAttestConfiguration.read(object, base: base)
    self.appProfile = profile
    self.authentication = authentication
    self.alertTitle = title
    self.alertBody = body
  }

  private static func authentication(_ object: ConfigurationObject, base: String?)
    throws(PushGatewayConfigurationError) -> Authentication
  {
    let auth = try object.oneOf("auth", ["token", "certificate"])
    if auth.key == "token" {
      let token = try ConfigurationObject(
        auth.value, path: auth.path, allowed: ["key_file", "key_id", "team_id"])
      let keyIDText = try token.requiredString("key_id", maxBytes: 64)
      let teamIDText = try token.requiredString("team_id", maxBytes: 64)
      guard let keyID = try? APNsIdentifier(keyIDText, field: "key_id") else {
        throw token.refuse("key_id", "must be 10 upper-case letters or digits (Apple's key id)")
      }
      guard let teamID = try? APNsIdentifier(teamIDText, field: "team_id") else {
        throw token.refuse("team_id", "must be 10 upper-case letters or digits (Apple's team id)")
      }
      let keyField = token.field("key_file")
      let pem = try SecretFile.read(
        PushGatewayConfiguration.resolve(try token.requiredString("key_file"), base: base), field: keyField,
        maxBytes: Self.maxPEMBytes, secret: true)
      do {
        return .token(key: try APNsSigningKey(pem: pem), keyID: keyID, teamID: teamID)
      } catch {
        throw token.refuse("key_file", "the APNs key must be a PKCS#8 PEM EC P-256 key: \(error.message)")
      }
    }
    let pair = try ConfigurationObject(auth.value, path: auth.path, allowed: ["cert_file", "key_file"])
    let certificatePath = PushGatewayConfiguration.resolve(try pair.requiredString("cert_file"), base: base)
    let keyPath = PushGatewayConfiguration.resolve(try pair.requiredString("key_file"), base: base)
    let certificate = try SecretFile.read(
      certificatePath, field: pair.field("cert_file"), maxBytes: Self.maxPEMBytes, secret: false)
    guard String(decoding: certificate, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
      throw pair.refuse("cert_file", "must be a PEM certificate")
    }
    let key = try SecretFile.read(
      keyPath, field: pair.field("key_file"), maxBytes: Self.maxPEMBytes, secret: true)
    guard String(decoding: key, as: UTF8.self).contains("PRIVATE KEY-----") else {
      throw pair.refuse("key_file", "must be a PEM private key")
    }
    return .certificate(CurlClientCertificate(certificateFile: certificatePath, keyFile: keyPath))
  }

  private static func credential(
    _ authentication: Authentication, slot: any APNsProviderTokenSlot, clock: UnixClock
  )
    -> APNsApp.Credential
  {
    switch authentication {
    case .token(let key, let keyID, let teamID):
      .token(APNsProviderTokens(key: key, keyID: keyID, teamID: teamID, clock: clock, slot: slot))
    case .certificate:
      .certificate
    }
  }

  private static func isProfileByte(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
      || byte == 0x2E || byte == 0x5F || byte == 0x2D
  }
}
