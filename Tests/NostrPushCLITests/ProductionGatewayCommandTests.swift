import Foundation
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import Testing

/// `nostr-push gateway --config FILE` as a process: the configuration's refusals (exit 1 naming
/// the field, exit 2 for fixture flags), and the served gateway that `nostr-push enroll
/// --gateway` registers and delegates through (real routes, NIP-98 by the account key).
@Suite(.timeLimit(.minutes(2))) struct ProductionGatewayCommandTests {
  static let demo = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/demo")
  static let profile = "org.nostrpushkit.demo"

  /// A folder with a sealing key and an APNs p8 key (0600) and `config.json` for `port`/`admin`.
  final class Files: Sendable {
    let path = NSTemporaryDirectory() + "gateway-config-" + UUID().uuidString
    var config: String { path + "/config.json" }

    /// `app` is added to the app's members (`,"app_attest":{…}`), `files` written next to it.
    init(
      port: Int, admin: Int, store: String = #"{"sqlite":"gateway.sqlite"}"#, app: String = "",
      files: [String: [UInt8]] = [:]
    ) async throws {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
      try Data(key.utf8).write(to: URL(fileURLWithPath: path + "/gateway.key"))
      let made = try await ChildProcess.run(
        URL(fileURLWithPath: "/usr/bin/env"),
        [
          "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out",
          path + "/AuthKey.p8",
        ])
      #expect(made.status == 0)
      for name in ["gateway.key", "AuthKey.p8"] {
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + "/" + name)
      }
      let json = """
        {"public_url":"http://127.0.0.1:\(port)","listen":"127.0.0.1:\(port)","admin_listen":"127.0.0.1:\(admin)",
         "key_file":"gateway.key","store":\(store),
         "apps":[{"app_profile":"\(ProductionGatewayCommandTests.profile)","topic":"org.nostrpushkit.demo",
                  "environment":"sandbox",
                  "auth":{"token":{"key_file":"AuthKey.p8","key_id":"ABC123DEFG","team_id":"TEAM123456"}},
                  "alert":{"title":"Demo","body":"New activity"}\(app)}]}
        """
      for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name)) }
      try Data(json.utf8).write(to: URL(fileURLWithPath: config))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
  }

  /// A loopback port that was free a moment ago (a fixture relay bound it and stopped).
  static func freePort() async throws -> Int {
    let probe = RelayFixtureServer(data: RelayFixtureData(), configuration: RelayFixtureConfiguration())
    let url = try await probe.start()
    await probe.stop()
    return try #require(url.port)
  }

  @Test(arguments: [["--port", "1"], ["--quota", "3"], ["--key-file", "k"], ["--now", "5"]])
  func refusesFixtureFlagsWithConfigWithStatus2(_ flags: [String]) async throws {
    let run = try await NostrPushBinary.run(["gateway", "--config", "/nonexistent/config.json"] + flags)
    #expect(run.status == 2)
    #expect(run.stderr.contains("--" + flags[0].dropFirst(2)))
  }

  @Test func refusesASecretOthersMayReadWithStatus1NamingTheField() async throws {
    let files = try await Files(port: try await Self.freePort(), admin: try await Self.freePort())
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o644], ofItemAtPath: files.path + "/gateway.key")
    let run = try await NostrPushBinary.run(["gateway", "--config", files.config])
    #expect(run.status == 1)
    #expect(run.stderr.contains("insecure_secret_file (key_file)"))
    #expect(run.stdout.isEmpty)
  }

  @Test func refusesAPostgreSQLStoreItCannotReachWithStatus1() async throws {
    let files = try await Files(
      port: try await Self.freePort(), admin: try await Self.freePort(),
      store: #"{"postgres":"host=127.0.0.1 port=1 connect_timeout=2"}"#)
    let run = try await NostrPushBinary.run(["gateway", "--config", files.config])
    #expect(run.status == 1)
    #expect(run.stderr.contains("storage_unavailable"), "\(run.stderr)")
  }

  /// With `Scripts/with-postgres` (`NOSTRPUSH_POSTGRES` set), the gateway serves on PostgreSQL and
  /// is ready; without it the test has nothing to run against and says so.
  @Test func servesOnPostgreSQLWhenADatabaseIsGiven() async throws {
    guard let conninfo = ProcessInfo.processInfo.environment["NOSTRPUSH_POSTGRES"] else { return }
    let admin = try await Self.freePort()
    let escaped = conninfo.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
      of: "\"", with: "\\\"")
    let files = try await Files(
      port: try await Self.freePort(), admin: admin, store: #"{"postgres":"\#(escaped)"}"#)
    guard let (process, _) = try await NostrPushBinary.startServer(["gateway", "--config", files.config])
    else {
      Issue.record("nostr-push was not built")
      return
    }
    defer { process.send(SIGKILL) }
    let ready = try await LoopbackFetch.send("http://127.0.0.1:\(admin)/_readiness")
    #expect(ready.status == 200, "\(String(decoding: ready.body, as: UTF8.self))")
    process.send(SIGTERM)
    #expect(await process.exited().status == 0)
  }

  @Test func refusesAMissingConfigurationWithStatus1() async throws {
    let run = try await NostrPushBinary.run(["gateway", "--config", "/nonexistent/config.json"])
    #expect(run.status == 1)
    #expect(run.stderr.contains("unreadable_file"))
  }

  @Test func servesTheRoutesEnrollRegistersThroughAndTheAdminListener() async throws {
    let port = try await Self.freePort()
    let admin = try await Self.freePort()
    let files = try await Files(port: port, admin: admin)
    guard let (process, line) = try await NostrPushBinary.startServer(["gateway", "--config", files.config])
    else {
      Issue.record("nostr-push was not built")
      return
    }
    defer { process.send(SIGKILL) }
    let object = try #require(try JSONReader().read(line).objectValue)
    #expect(object["listening"] == .string("http://127.0.0.1:\(port)"))
    #expect(object["admin"] == .string("http://127.0.0.1:\(admin)"))

    let ready = try await LoopbackFetch.send("http://127.0.0.1:\(admin)/_readiness")
    #expect(ready.status == 200)
    #expect(
      String(decoding: ready.body, as: UTF8.self)
        == #"{"status":"ready","store":true,"keys":true,"apps":{"org.nostrpushkit.demo":true}}"#)

    // enroll --gateway: register + delegate on the real routes; the publish that follows fails
    // (the descriptor's push.origin is closed), after the grant's expiry was saved.
    let relay = try await EnrollCommandTests.startRelay()
    let now = Int64(Date().timeIntervalSince1970)
    let state = files.path + "/state.json"
    let enrolled = try await relay.serving {
      try await NostrPushBinary.run([
        "enroll", "--relay", relay.origin!, "--secret-key-file",
        Self.demo.appendingPathComponent("account.key").path, "--state", state, "--app-profile", Self.profile,
        "--transport", "apns", "--gateway", "http://127.0.0.1:\(port)", "--device-token",
        String(repeating: "a1", count: 32), "--now", "\(now)",
      ])
    }
    #expect(try EnrollCommandTests.line(enrolled)["error"] == .string("transport"), "\(enrolled.stderr)")
    let saved = try #require(try EnrollCommandTests.enrollment(state))
    #expect(saved["grant_expires_at"] == .integer(now + 30 * 86_400))

    let metrics = String(
      decoding: try await LoopbackFetch.send("http://127.0.0.1:\(admin)/metrics").body, as: UTF8.self)
    #expect(metrics.contains(#"push_gateway_registrations_total{route="installations",outcome="created"} 1"#))
    #expect(metrics.contains(#"push_gateway_registrations_total{route="delegations",outcome="created"} 1"#))
    #expect(!metrics.contains(String(repeating: "a1", count: 32)))

    process.send(SIGTERM)
    #expect(await process.exited().status == 0)
  }
}
