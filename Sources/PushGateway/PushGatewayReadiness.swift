import NostrCurlHTTP
import NostrPushCore

/// What `GET /_readiness` checks: the store answers, the sealing keys are loaded, and each app's
/// APNs credential is usable. Each check is a closure, so the admin listener is wired to
/// whichever store the gateway runs on without knowing it.
public struct PushGatewayReadiness: Sendable {
  /// One check: true when the part is ready. It should honour cancellation; the listener stops
  /// waiting for it after ``PushGatewayAdminListener/checkTimeout`` and counts it not ready.
  public typealias Check = @Sendable () async -> Bool

  /// The store is reachable (a trivial query answers).
  public let store: Check
  /// The sealing keys are loaded.
  public let keys: Check
  /// Per app profile, in configuration order: its credential is loaded and usable.
  public let apps: [(profile: String, check: Check)]

  /// Readiness made of these checks.
  public init(store: @escaping Check, keys: @escaping Check, apps: [(profile: String, check: Check)]) {
    self.store = store
    self.keys = keys
    self.apps = apps
  }

  /// The credential check of `app`: under token auth the p8 key signs (ES256) a probe; under
  /// certificate auth the certificate and key files are still readable, the key still mode 0600.
  public static func credentialCheck(for app: PushGatewayAppConfiguration) -> Check {
    switch app.authentication {
    case .token(let key, _, _):
      return { (try? key.sign(Array("readiness".utf8)))?.count == 64 }
    case .certificate(let pair):
      return {
        let maxBytes = PushGatewayAppConfiguration.maxPEMBytes
        return
          (try? SecretFile.read(pair.certificateFile, field: "cert_file", maxBytes: maxBytes, secret: false))
          != nil
          && (try? SecretFile.read(pair.keyFile, field: "key_file", maxBytes: maxBytes, secret: true)) != nil
      }
    }
  }
}
