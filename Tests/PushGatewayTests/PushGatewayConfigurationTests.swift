import Foundation
import NostrCurlHTTP
import PushGateway
import Testing

@Suite struct PushGatewayConfigurationTests {
  @Test func readsAValidFileIntoCheckedValues() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(files.valid))
    #expect(configuration.publicURL == "https://push.example.org")
    #expect(configuration.listen.description == "127.0.0.1:8443")
    #expect(configuration.adminListen.port == 9090)
    #expect(configuration.key.bytes == files.keyBytes)
    #expect(
      !configuration.key.description.contains(
        String(format: "%02x%02x", files.keyBytes[0], files.keyBytes[1])))
    #expect(configuration.store == .sqlite(path: files.path("gateway.sqlite")))
    #expect(configuration.owners == [String(repeating: "ab", count: 32)])
    #expect(configuration.relayPubkeys == [String(repeating: "cd", count: 32)])
    #expect(configuration.quota == PushGatewayQuota(per10Seconds: 5, perHour: 60))
    #expect(configuration.apnsOverride == nil)
    let app = try #require(configuration.app(profile: "chat"))
    #expect(app.app.topic == "org.example.chat")
    #expect(app.app.environment == .sandbox)
    #expect(
      String(decoding: app.app.body, as: UTF8.self)
        == #"{"aps":{"alert":{"title":"Chat","body":"New activity"},"mutable-content":1}}"#)
    guard case .token(_, let keyID, let teamID) = app.authentication else {
      Issue.record("expected token auth")
      return
    }
    #expect(keyID.value == "ABC123DEFG" && teamID.value == "TEAM123456")
    #expect(configuration.app(profile: "other") == nil)
  }

  @Test func appliesTheDefaultsOfOptionalMembers() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    var object = files.valid
    for name in ["listen", "admin_listen", "owners", "relay_pubkeys", "quota"] { object[name] = nil }
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    #expect(configuration.listen.description == "127.0.0.1:8443")
    #expect(configuration.adminListen.description == "127.0.0.1:9090")
    #expect(configuration.owners == nil && configuration.relayPubkeys == nil)
    #expect(configuration.quota == PushGatewayQuota(per10Seconds: 10, perHour: 120))
  }

  @Test(arguments: [("key_file", 0o644), ("key_file", 0o640), ("AuthKey.p8", 0o604), ("AuthKey.p8", 0o660)])
  func refusesASecretOthersMayRead(_ file: String, _ mode: Int) async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    try files.chmod(file == "key_file" ? "gateway.key" : file, mode)
    let field = file == "key_file" ? "key_file" : "apps[0].auth.token.key_file"
    #expect(throws: PushGatewayConfigurationError(code: .insecureSecretFile, field: field, message: "")) {
      try PushGatewayConfiguration(contentsOf: try files.configFile(files.valid))
    }
  }

  @Test func acceptsAnOwnerReadOnlySecret() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    try files.chmod("gateway.key", 0o400)
    _ = try PushGatewayConfiguration(contentsOf: try files.configFile(files.valid))
  }

  @Test func refusesAnInsecurePreviousKey() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    try files.write("old.key", String(repeating: "11", count: 32), mode: 0o600)
    try files.write("older.key", String(repeating: "22", count: 32), mode: 0o644)
    var object = files.valid
    object["previous_key_files"] = ["old.key"]
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    #expect(configuration.previousKeys.map(\.bytes) == [[UInt8](repeating: 0x11, count: 32)])
    object["previous_key_files"] = ["old.key", "older.key"]
    #expect(
      throws: PushGatewayConfigurationError(
        code: .insecureSecretFile, field: "previous_key_files[1]", message: "")
    ) { try PushGatewayConfiguration(contentsOf: try files.configFile(object)) }
  }

  @Test func refusesAMissingSecretFile() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    var object = files.valid
    object["key_file"] = "absent.key"
    #expect(throws: PushGatewayConfigurationError(code: .unreadableFile, field: "key_file", message: "")) {
      try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    }
  }

  @Test func refusesAP8KeyNotOnP256() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    _ = try await files.tool.ecKey("AuthKey.p8", curve: "P-384")
    try files.chmod("AuthKey.p8", 0o600)
    #expect(
      throws: PushGatewayConfigurationError(
        code: .invalidField, field: "apps[0].auth.token.key_file", message: "")
    ) { try PushGatewayConfiguration(contentsOf: try files.configFile(files.valid)) }
  }

  @Test func refusesAWakeBodyOver4096Bytes() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    // The wake's fixed JSON takes 63 bytes besides the title and body: 4029 body bytes fit.
    let fixed = #"{"aps":{"alert":{"title":"Chat","body":""},"mutable-content":1}}"#.utf8.count
    var object = files.valid
    object["apps"] = [files.app(body: String(repeating: "x", count: 4096 - fixed))]
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    #expect(configuration.apps[0].app.body.count == 4096)
    object["apps"] = [files.app(body: String(repeating: "x", count: 4097 - fixed))]
    #expect(throws: PushGatewayConfigurationError(code: .invalidField, field: "apps[0].alert", message: "")) {
      try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    }
  }

  @Test func takesALoopbackAPNsStandInWithItsCA() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    try files.write("ca.pem", "-----BEGIN CERTIFICATE-----\n", mode: 0o644)
    var object = files.valid
    object["apns_url"] = "https://127.0.0.1:8555"
    object["apns_ca_file"] = "ca.pem"
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    #expect(configuration.apnsOverride?.origin == "https://127.0.0.1:8555")
    #expect(configuration.apnsOverride?.caFile == files.path("ca.pem"))
  }

  /// Each entry: the member changed (nil: removed), its new JSON value, the field named.
  static let refusals: [(String, String?, String)] = [
    ("unknown", #""x""#, "unknown"),
    ("public_url", nil, "public_url"),
    ("public_url", #""http://push.example.org""#, "public_url"),
    ("public_url", #""https://push.example.org/v1""#, "public_url"),
    ("public_url", #""https://push.example.org/""#, "public_url"),
    ("public_url", #""HTTPS://Push.example.org""#, "public_url"),
    ("listen", #""localhost:8443""#, "listen"),
    ("listen", #""127.0.0.1""#, "listen"),
    ("admin_listen", #""127.0.0.1:8443""#, "admin_listen"),
    ("store", #"{"sqlite":"a","postgres":"b"}"#, "store"),
    ("store", #"{"mysql":"a"}"#, "store.mysql"),
    ("store", #"{"sqlite":""}"#, "store.sqlite"),
    ("owners", #"["AB"]"#, "owners[0]"),
    ("relay_pubkeys", #""x""#, "relay_pubkeys"),
    ("quota", #"{"per_10s":20,"per_hour":10}"#, "quota.per_hour"),
    ("quota", #"{"per_10s":0}"#, "quota.per_10s"),
    ("quota", #"{"per_10s":1.5}"#, "quota.per_10s"),
    ("apps", "[]", "apps"),
    ("apns_url", #""https://api.push.apple.com""#, "apns_url"),
    ("apns_url", #""http://127.0.0.1:8555""#, "apns_url"),
    ("apns_ca_file", #""ca.pem""#, "apns_ca_file"),
  ]

  @Test(arguments: refusals)
  func namesTheFieldItRefuses(_ member: String, _ json: String?, _ field: String) async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    var object = files.valid
    object[member] =
      json.map { try? JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed]) } ?? nil
    #expect(throws: PushGatewayConfigurationError(code: .invalidField, field: field, message: "")) {
      try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    }
  }

  /// Each entry: the app member changed, its new JSON value, the field named.
  static let appRefusals: [(String, String, String)] = [
    ("app_profile", #""chat app""#, "apps[0].app_profile"),
    ("environment", #""development""#, "apps[0].environment"),
    ("topic", #""org example""#, "apps[0].topic"),
    (
      "auth", #"{"token":{"key_file":"AuthKey.p8","key_id":"abc","team_id":"TEAM123456"}}"#,
      "apps[0].auth.token.key_id"
    ),
    (
      "auth", #"{"token":{"key_file":"AuthKey.p8","key_id":"ABC123DEFG","team_id":"T"}}"#,
      "apps[0].auth.token.team_id"
    ),
    ("auth", #"{"token":{},"certificate":{}}"#, "apps[0].auth"),
    ("alert", #"{"title":"Chat"}"#, "apps[0].alert.body"),
  ]

  @Test(arguments: appRefusals)
  func namesTheAppFieldItRefuses(_ member: String, _ json: String, _ field: String) async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    var app = files.app()
    app[member] = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
    var object = files.valid
    object["apps"] = [app]
    #expect(throws: PushGatewayConfigurationError(code: .invalidField, field: field, message: "")) {
      try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    }
  }

  @Test func refusesTwoAppsWithOneProfile() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    var object = files.valid
    object["apps"] = [files.app(), files.app()]
    #expect(
      throws: PushGatewayConfigurationError(code: .invalidField, field: "apps[1].app_profile", message: "")
    ) { try PushGatewayConfiguration(contentsOf: try files.configFile(object)) }
  }

  @Test func refusesAKeyFileThatIsNot32HexBytes() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    try files.write("gateway.key", String(repeating: "ab", count: 31), mode: 0o600)
    #expect(throws: PushGatewayConfigurationError(code: .invalidField, field: "key_file", message: "")) {
      try PushGatewayConfiguration(contentsOf: try files.configFile(files.valid))
    }
  }

  @Test func loadsCertificateAuthAndChecksItsKeyMode() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    try await files.tool.run([
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=push",
      "-days", "1", "-keyout", files.path("client.key"), "-out", files.path("client.pem"),
    ])
    try files.chmod("client.key", 0o600)
    var app = files.app()
    app["auth"] = ["certificate": ["cert_file": "client.pem", "key_file": "client.key"]]
    var object = files.valid
    object["apps"] = [app]
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    guard case .certificate(let pair) = configuration.apps[0].authentication else {
      Issue.record("expected certificate auth")
      return
    }
    #expect(pair.certificateFile == files.path("client.pem") && pair.keyFile == files.path("client.key"))
    try files.chmod("client.key", 0o644)
    #expect(
      throws: PushGatewayConfigurationError(
        code: .insecureSecretFile, field: "apps[0].auth.certificate.key_file", message: "")
    ) { try PushGatewayConfiguration(contentsOf: try files.configFile(object)) }
  }

  @Test func refusesTextThatIsNotJSON() {
    #expect(throws: PushGatewayConfigurationError(code: .invalidField, field: nil, message: "")) {
      try PushGatewayConfiguration(json: Array(#"{"public_url":"https://a.example",}"#.utf8))
    }
  }
}
