import AppAttest
import NostrJSON
import NostrPushCore

/// The production gateway's configuration file (`nostr-push gateway --config FILE`), parsed once
/// into checked values: every refusal is a ``PushGatewayConfigurationError`` naming the member.
///
/// ```json
/// {"public_url":"https://push.example.org",
///  "listen":"127.0.0.1:8443", "admin_listen":"127.0.0.1:9090",
///  "key_file":"gateway.key", "previous_key_files":["gateway.key.1"],
///  "store":{"sqlite":"gateway.sqlite"},
///  "owners":["<hex>"], "relay_pubkeys":["<hex>"],
///  "quota":{"per_10s":10,"per_hour":120},
///  "apps":[{"app_profile":"chat","topic":"org.example.chat","environment":"production",
///           "auth":{"token":{"key_file":"AuthKey.p8","key_id":"ABC123DEFG","team_id":"TEAM123456"}},
///           "alert":{"title":"Chat","body":"New activity"},
///           "app_attest":{"app_id":"TEAM123456.org.example.chat","environment":"production"}}]}
/// ```
///
/// `app_attest` is optional per app (``PushGatewayAppAttestConfiguration``).
///
/// Checked at start: secrets (`key_file`, `previous_key_files`, an app's p8 key or certificate
/// key) are files of mode 0600 (``SecretFile``); the sealing keys are 32 bytes in hex; the p8
/// key is an EC P-256 PKCS#8 key; each wake body is at most 4096 bytes; `apns_url` and
/// `apns_ca_file` (for tests against a stand-in only) name a loopback `https` origin and go
/// together.
///
/// Decisions where the spec is silent: unknown members are refused (a misspelt allowlist would
/// otherwise be silently off); relative paths resolve against the configuration file's
/// directory; `listen` defaults to `127.0.0.1:8443` and `admin_listen` to `127.0.0.1:9090`, and
/// the two must differ; `public_url` is an origin (`https://host[:port]`, `http` only on
/// loopback, no path), like the relay's gateway URL; at most 64 apps with distinct
/// `app_profile`s, at most 10 000 entries per allowlist.
public struct PushGatewayConfiguration: Sendable {
  /// The largest configuration file read: 256 KiB.
  public static let maxFileBytes = 256 * 1024
  /// The most apps one gateway serves.
  public static let maxApps = 64
  /// The most entries of `owners` or `relay_pubkeys`.
  public static let maxAllowlistEntries = 10_000
  /// The most `previous_key_files`.
  public static let maxPreviousKeys = 8
  /// The default `listen`.
  public static let defaultListen = "127.0.0.1:8443"
  /// The default `admin_listen`.
  public static let defaultAdminListen = "127.0.0.1:9090"

  /// Where tests point the APNs client instead of Apple: a loopback `https` stand-in and the CA
  /// that signed its certificate.
  public struct APNsOverride: Sendable, Hashable {
    /// `https://127.0.0.1:<port>` (or another loopback host).
    public let origin: String
    /// The PEM CA file the client trusts instead of the system bundle.
    public let caFile: String
  }

  /// The gateway's public origin: NIP-98 `u` tags are `<public_url><path>` byte for byte.
  public let publicURL: String
  /// Where the routes are served.
  public let listen: PushGatewayListenAddress
  /// Where `/_liveness`, `/_readiness` and `/metrics` are served.
  public let adminListen: PushGatewayListenAddress
  /// The key that seals and opens grants.
  public let key: PushGatewayKeyMaterial
  /// Older keys that still open grants, never seal.
  public let previousKeys: [PushGatewayKeyMaterial]
  /// Where the state lives.
  public let store: PushGatewayStoreLocation
  /// The owners allowed to register (lower-case hex pubkeys), nil when anyone may.
  public let owners: Set<String>?
  /// The relays allowed to deliver and be delegated to, nil when any may.
  public let relayPubkeys: Set<String>?
  /// The per-device quota.
  public let quota: PushGatewayQuota
  /// The apps, in file order, with distinct profiles.
  public let apps: [PushGatewayAppConfiguration]
  /// The APNs stand-in for tests, nil in production.
  public let apnsOverride: APNsOverride?

  /// Reads and checks the file at `path`; relative paths inside resolve against its directory.
  public init(contentsOf path: String) throws(PushGatewayConfigurationError) {
    let bytes = try SecretFile.read(path, field: "config", maxBytes: Self.maxFileBytes, secret: false)
    let slash = path.lastIndex(of: "/")
    let base = slash.map { String(path[...$0]) } ?? "./"
    try self.init(json: bytes, base: base)
  }

  /// Reads and checks `json`; relative paths resolve against `base` (a directory ending in `/`,
  /// the working directory when nil).
  public init(json: [UInt8], base: String? = nil) throws(PushGatewayConfigurationError) {
    let value: JSONValue
    do {
      value = try JSONReader(maxDepth: 8, maxBytes: Self.maxFileBytes).read(json)
    } catch {
      throw PushGatewayConfigurationError(
        code: .invalidField, field: nil, message: "not strict JSON: \(error.description)")
    }
    let top = try ConfigurationObject(
      value, path: "",
      allowed: [
        "public_url", "listen", "admin_listen", "key_file", "previous_key_files", "store", "owners",
        "relay_pubkeys", "quota", "apps", "apns_url", "apns_ca_file",
      ])
    publicURL = try Self.publicURL(top)
    listen = try PushGatewayListenAddress(
      try top.string("listen", maxBytes: 64) ?? Self.defaultListen, field: "listen")
    adminListen = try PushGatewayListenAddress(
      try top.string("admin_listen", maxBytes: 64) ?? Self.defaultAdminListen, field: "admin_listen")
    if listen == adminListen, listen.port != 0 {
      throw top.refuse("admin_listen", "must differ from listen")
    }
    key = try Self.keyMaterial(try top.requiredString("key_file"), field: "key_file", base: base)
    var previous: [PushGatewayKeyMaterial] = []
    for (index, element) in (try top.array("previous_key_files", maxCount: Self.maxPreviousKeys) ?? [])
      .enumerated()
    {
      let field = "previous_key_files[\(index)]"
      guard let path = element.stringValue, !path.isEmpty else {
        throw PushGatewayConfigurationError(code: .invalidField, field: field, message: "must be a path")
      }
      previous.append(try Self.keyMaterial(path, field: field, base: base))
    }
    previousKeys = previous
    store = try Self.store(top)
    owners = try Self.allowlist(top, "owners")
    relayPubkeys = try Self.allowlist(top, "relay_pubkeys")
    quota = try Self.quota(top)
    apps = try Self.apps(top, base: base)
    apnsOverride = try Self.apnsOverride(top, base: base)
  }

  /// The app serving `appProfile`, nil when none does.
  public func app(profile appProfile: String) -> PushGatewayAppConfiguration? {
    apps.first { $0.appProfile == appProfile }
  }

  /// The App Attest verifier of each app with an `app_attest` block, by app profile: what
  /// `PushGateway(appAttest:)` takes.
  public var appAttestVerifiers: [String: any AppAttestVerifying] {
    var verifiers: [String: any AppAttestVerifying] = [:]
    for app in apps { if let appAttest = app.appAttest { verifiers[app.appProfile] = appAttest.verifier } }
    return verifiers
  }

  /// `path` as given when absolute or no base is set, else appended to `base`.
  static func resolve(_ path: String, base: String?) -> String {
    guard let base, !path.hasPrefix("/") else { return path }
    return base.hasSuffix("/") ? base + path : base + "/" + path
  }

  private static func publicURL(_ top: ConfigurationObject) throws(PushGatewayConfigurationError) -> String {
    let text = try top.requiredString("public_url", maxBytes: 2048)
    guard text.hasPrefix("https://") || text.hasPrefix("http://"),
      let (origin, rest, _) = RelayOrigin.parse(text),
      rest.isEmpty
    else {
      throw top.refuse("public_url", "must be https://host[:port] with nothing after it")
    }
    guard origin.isSecure || origin.isLoopback else {
      throw top.refuse("public_url", "may use http only on loopback")
    }
    guard origin.description == text else {
      throw top.refuse("public_url", "must be written in canonical form: \(origin.description)")
    }
    return text
  }

  private static func keyMaterial(_ path: String, field: String, base: String?)
    throws(PushGatewayConfigurationError) -> PushGatewayKeyMaterial
  {
    let bytes = try SecretFile.read(resolve(path, base: base), field: field, maxBytes: 1024, secret: true)
    return try PushGatewayKeyMaterial(fileContents: bytes, field: field)
  }

  private static func store(_ top: ConfigurationObject) throws(PushGatewayConfigurationError)
    -> PushGatewayStoreLocation
  {
    let choice = try top.oneOf("store", ["sqlite", "postgres"])
    guard let text = choice.value.stringValue, (1...4096).contains(text.utf8.count) else {
      throw PushGatewayConfigurationError(
        code: .invalidField, field: choice.path, message: "must be a string of 1 to 4096 bytes")
    }
    return choice.key == "sqlite" ? .sqlite(path: text) : .postgres(conninfo: text)
  }

  private static func allowlist(_ top: ConfigurationObject, _ name: String)
    throws(PushGatewayConfigurationError)
    -> Set<String>?
  {
    guard let elements = try top.array(name, maxCount: maxAllowlistEntries) else { return nil }
    var keys = Set<String>()
    for (index, element) in elements.enumerated() {
      guard let key = element.stringValue, Hex.isLowercaseHex(key, length: 64) else {
        throw PushGatewayConfigurationError(
          code: .invalidField, field: "\(name)[\(index)]",
          message: "must be a pubkey: 64 lower-case hex digits")
      }
      keys.insert(key)
    }
    return keys
  }

  private static func quota(_ top: ConfigurationObject) throws(PushGatewayConfigurationError)
    -> PushGatewayQuota
  {
    guard let object = try top.object("quota", allowed: ["per_10s", "per_hour"]) else {
      return PushGatewayQuota()
    }
    let per10 = try object.integer("per_10s", in: 1...100_000) ?? Int64(PushGatewayQuota.defaultPer10Seconds)
    let perHour = try object.integer("per_hour", in: 1...10_000_000) ?? Int64(PushGatewayQuota.defaultPerHour)
    guard perHour >= per10 else { throw object.refuse("per_hour", "must be at least per_10s") }
    return PushGatewayQuota(per10Seconds: Int(per10), perHour: Int(perHour))
  }

  private static func apps(_ top: ConfigurationObject, base: String?) throws(PushGatewayConfigurationError)
    -> [PushGatewayAppConfiguration]
  {
    guard let elements = try top.array("apps", maxCount: maxApps), !elements.isEmpty else {
      throw top.refuse("apps", "at least one app is required")
    }
    var apps: [PushGatewayAppConfiguration] = []
    for (index, element) in elements.enumerated() {
      let app = try PushGatewayAppConfiguration(element, path: "apps[\(index)]", base: base)
      guard !apps.contains(where: { $0.appProfile == app.appProfile }) else {
        throw PushGatewayConfigurationError(
          code: .invalidField, field: "apps[\(index)].app_profile",
          message: "names an app_profile already listed")
      }
      apps.append(app)
    }
    return apps
  }

  private static func apnsOverride(_ top: ConfigurationObject, base: String?)
    throws(PushGatewayConfigurationError)
    -> APNsOverride?
  {
    let url = try top.string("apns_url", maxBytes: 2048)
    let caFile = try top.string("apns_ca_file")
    guard let url else {
      if caFile != nil { throw top.refuse("apns_ca_file", "only with apns_url (tests against a stand-in)") }
      return nil
    }
    guard url.hasPrefix("https://"), let (origin, rest, _) = RelayOrigin.parse(url), rest.isEmpty,
      origin.isLoopback
    else {
      throw top.refuse(
        "apns_url", "must be https://<loopback>:<port>: it exists for tests against a stand-in")
    }
    guard let caFile else { throw top.refuse("apns_ca_file", "is required with apns_url") }
    let caPath = resolve(caFile, base: base)
    _ = try SecretFile.read(caPath, field: "apns_ca_file", maxBytes: 1024 * 1024, secret: false)
    return APNsOverride(origin: origin.description, caFile: caPath)
  }
}
