import Foundation

/// A temporary folder holding what a gateway configuration names: a sealing key file and an
/// APNs p8 key (made by `openssl`), both mode 0600, and the JSON of a valid configuration that a
/// test changes one member of.
struct GatewayConfigurationFiles {
  let tool: OpenSSLTool
  /// The sealing key's 32 bytes, as written in hex to `gateway.key`.
  let keyBytes: [UInt8]

  /// A folder with `gateway.key` (0600) and `AuthKey.p8` (an EC P-256 key, 0600).
  static func make() async throws -> GatewayConfigurationFiles {
    let tool = try OpenSSLTool.make()
    let keyBytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
    let files = GatewayConfigurationFiles(tool: tool, keyBytes: keyBytes)
    try files.write("gateway.key", keyBytes.map { String(format: "%02x", $0) }.joined() + "\n", mode: 0o600)
    _ = try await tool.ecKey("AuthKey.p8")
    try files.chmod("AuthKey.p8", 0o600)
    return files
  }

  func remove() { tool.remove() }

  func path(_ name: String) -> String { tool.path(name) }

  /// Writes `text` to `name` with `mode`.
  func write(_ name: String, _ text: String, mode: Int) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
    try chmod(name, mode)
  }

  func chmod(_ name: String, _ mode: Int) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(name))
  }

  /// A valid configuration: one token-auth app, SQLite store, every optional member set.
  var valid: [String: Any] {
    [
      "public_url": "https://push.example.org",
      "listen": "127.0.0.1:8443", "admin_listen": "127.0.0.1:9090",
      "key_file": "gateway.key",
      "store": ["sqlite": path("gateway.sqlite")],
      "owners": [String(repeating: "ab", count: 32)],
      "relay_pubkeys": [String(repeating: "cd", count: 32)],
      "quota": ["per_10s": 5, "per_hour": 60],
      "apps": [app()],
    ]
  }

  /// One token-auth app entry.
  func app(profile: String = "chat", body: String = "New activity") -> [String: Any] {
    [
      "app_profile": profile, "topic": "org.example.chat", "environment": "sandbox",
      "auth": ["token": ["key_file": "AuthKey.p8", "key_id": "ABC123DEFG", "team_id": "TEAM123456"]],
      "alert": ["title": "Chat", "body": body],
    ]
  }

  /// `object` written as `config.json` in the folder; its path.
  func configFile(_ object: [String: Any]) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    try data.write(to: URL(fileURLWithPath: path("config.json")))
    return path("config.json")
  }
}
