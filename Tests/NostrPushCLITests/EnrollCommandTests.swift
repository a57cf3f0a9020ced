import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import Testing

/// `enroll` and `revoke` against the fixture relay serving the demo descriptor, whose
/// `push.origin` rewritten to a loopback port nothing listens on: every publish fails, which is
/// exactly the crash-between-saving-and-publishing case the state file must survive.
@Suite(.timeLimit(.minutes(2))) struct EnrollCommandTests {
  static let now: Int64 = 1_767_226_200
  static let demo = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/demo")
  static let channel = "3f6c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13"

  final class Workspace: Sendable {
    let path = NSTemporaryDirectory() + "enroll-cli-" + UUID().uuidString
    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var state: String { path + "/state.json" }
  }

  static func startRelay() async throws -> RelayFixtureServer {
    var data = try RelayFixtureData.load(folder: demo)
    let nip11 = String(decoding: try #require(data.nip11), as: UTF8.self)
    #expect(nip11.contains("ws://127.0.0.1:48111"))
    data.nip11 = Array(
      nip11.replacingOccurrences(of: "ws://127.0.0.1:48111", with: try await closedOrigin()).utf8)
    let server = RelayFixtureServer(data: data, configuration: RelayFixtureConfiguration(now: now))
    _ = try await server.start()
    return server
  }

  /// A loopback `ws://` origin nothing listens on: the port a relay had until it stopped (the
  /// demo's own 48111 may be in use by a benchmark or a demo running beside the tests).
  static func closedOrigin() async throws -> String {
    let probe = RelayFixtureServer(
      data: RelayFixtureData(), configuration: RelayFixtureConfiguration(now: now))
    let url = try await probe.start()
    await probe.stop()
    return "ws://127.0.0.1:\(try #require(url.port))"
  }

  static func line(_ run: NostrPushBinary.Run) throws -> JSONObject {
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.count == 1)
    return try #require(try JSONReader().read(String(lines.first ?? "")).objectValue)
  }

  /// The saved enrollment of the demo account (the state holds one origin here).
  static func enrollment(_ state: String) throws -> JSONObject? {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: state)))
    let object = try #require(try JSONReader().read(bytes).objectValue)
    return object.members.first?.value.objectValue?.members.first?.value.objectValue
  }

  func enroll(_ server: RelayFixtureServer, state: String, channels: String) async throws
    -> NostrPushBinary.Run
  {
    try await NostrPushBinary.run([
      "enroll", "--relay", server.origin!, "--secret-key-file",
      Self.demo.appendingPathComponent("account.key").path,
      "--state", state, "--app-profile", "org.nostrpushkit.demo", "--transport", "apns", "--endpoint",
      "grant-for-tests", "--channels", channels, "--now", "\(Self.now)",
    ])
  }

  @Test func savesTheNextGenerationBeforePublishingSoAFailedPublishNeverReusesIt() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let channels = workspace.path + "/channels.json"
      try Data("[\"\(Self.channel)\"]".utf8).write(to: URL(fileURLWithPath: channels))

      let first = try await enroll(server, state: workspace.state, channels: channels)
      #expect(first.status == 1)
      #expect(try Self.line(first)["error"] == .string("transport"))
      let saved = try #require(try Self.enrollment(workspace.state))
      #expect(saved["last_generation"] == .integer(1))
      #expect(saved["last_created_at"] == .integer(Self.now))
      #expect(saved["grant_expires_at"] == .null)
      let d = try #require(saved["d"]?.stringValue)
      #expect(d.count == 32 && d.allSatisfy { $0.isHexDigit && !$0.isUppercase })

      // The same second again: a new generation and a later created_at, the same installation id.
      let second = try await enroll(server, state: workspace.state, channels: channels)
      #expect(second.status == 1)
      let again = try #require(try Self.enrollment(workspace.state))
      #expect(again["last_generation"] == .integer(2))
      #expect(again["last_created_at"] == .integer(Self.now + 1))
      #expect(again["d"] == .string(d))

      let revoke = try await NostrPushBinary.run([
        "revoke", "--relay", server.origin!, "--secret-key-file",
        Self.demo.appendingPathComponent("account.key").path,
        "--state", workspace.state, "--now", "\(Self.now)",
      ])
      #expect(try Self.line(revoke)["error"] == .string("transport"))
      #expect(try Self.enrollment(workspace.state)?["last_generation"] == .integer(3))
    }
  }

  /// Six enroll processes started together on one state file: each takes the next generation
  /// under the file's lock before it publishes, so the saved generation ends at six. Two that read
  /// the file before either wrote it would take the same generation and leave it lower.
  @Test func concurrentEnrollsEachTakeTheirOwnGeneration() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let channels = workspace.path + "/channels.json"
      try Data("[\"\(Self.channel)\"]".utf8).write(to: URL(fileURLWithPath: channels))
      let runs = try await withThrowingTaskGroup(of: NostrPushBinary.Run.self) { group in
        for _ in 0..<6 {
          group.addTask { try await self.enroll(server, state: workspace.state, channels: channels) }
        }
        var runs: [NostrPushBinary.Run] = []
        for try await run in group { runs.append(run) }
        return runs
      }
      // Every publish fails (the origin is closed) after its generation was saved.
      #expect(runs.map(\.status) == Array(repeating: 1, count: 6))
      for run in runs { #expect(try Self.line(run)["error"] == .string("transport")) }
      let saved = try #require(try Self.enrollment(workspace.state))
      #expect(saved["last_generation"] == .integer(6))
      #expect(saved["last_created_at"] == .integer(Self.now + 5))
    }
  }

  /// Against a relay in push mode: enroll, enroll again (the same `d`, generation + 1), revoke
  /// (the next generation), each accepted by the relay.
  @Test func reenrollsWithTheSameInstallationIDAndRevokesWithTheNextGeneration() async throws {
    let workspace = Workspace()
    let server = RelayFixtureServer(
      data: try RelayFixtureData.load(folder: Self.demo),
      configuration: RelayFixtureConfiguration(
        now: Self.now,
        push: RelayFixturePushMode(pushKey: SecretKey.generate(), statePath: workspace.path + "/relay.sqlite")
      ))
    _ = try await server.start()
    try await server.serving {
      let channels = workspace.path + "/channels.json"
      try Data("[\"\(Self.channel)\"]".utf8).write(to: URL(fileURLWithPath: channels))

      let first = try Self.line(try await enroll(server, state: workspace.state, channels: channels))
      let second = try Self.line(try await enroll(server, state: workspace.state, channels: channels))
      let revoke = try Self.line(
        try await NostrPushBinary.run([
          "revoke", "--relay", server.origin!, "--secret-key-file",
          Self.demo.appendingPathComponent("account.key").path, "--state", workspace.state, "--now",
          "\(Self.now)",
        ]))
      #expect(
        [first, second, revoke].map { $0["accepted"] } == [.bool(true), .bool(true), .bool(true)],
        "enroll: \(first), again: \(second), revoke: \(revoke)")
      #expect([first, second, revoke].map { $0["generation"] } == [.integer(1), .integer(2), .integer(3)])
      #expect(second["d"] == first["d"])
      #expect(revoke["d"] == first["d"])
      #expect(first["exec"] == .string("demo-2026-01"))
      #expect(try Self.enrollment(workspace.state)?["last_generation"] == .integer(3))
    }
  }

  /// `Docs/Robustness.md`: a symlink planted where enroll writes its temporary file (a shared
  /// folder) is never followed: the file it points at is untouched, and the state is saved 0600.
  @Test func neverFollowsASymlinkPlantedAtTheTemporaryFile() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let channels = workspace.path + "/channels.json"
      try Data("[\"\(Self.channel)\"]".utf8).write(to: URL(fileURLWithPath: channels))
      let victim = workspace.path + "/victim"
      try Data("victim\n".utf8).write(to: URL(fileURLWithPath: victim))
      try FileManager.default.createSymbolicLink(
        atPath: workspace.state + ".tmp", withDestinationPath: victim)
      let run = try await enroll(server, state: workspace.state, channels: channels)
      #expect(try Self.line(run)["error"] == .string("transport"))
      #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim\n")
      #expect(try Self.enrollment(workspace.state)?["last_generation"] == .integer(1))
      let attributes = try FileManager.default.attributesOfItem(atPath: workspace.state)
      #expect(attributes[.type] as? FileAttributeType == .typeRegular)
      #expect((attributes[.posixPermissions] as? NSNumber).map { $0.intValue & 0o777 } == 0o600)
    }
  }

  @Test func refusesToRevokeWithoutAnEnrollment() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let run = try await NostrPushBinary.run([
        "revoke", "--relay", server.origin!, "--secret-key-file",
        Self.demo.appendingPathComponent("account.key").path,
        "--state", workspace.state, "--now", "\(Self.now)",
      ])
      #expect(run.status == 1)
      #expect(try Self.line(run)["error"] == .string("not_enrolled"))
      #expect(!FileManager.default.fileExists(atPath: workspace.state))
    }
  }

  @Test func refusesARelayWithoutAPushDescriptorBeforeAnythingIsSaved() async throws {
    let server = RelayFixtureServer(data: RelayFixtureData(nip11: Array(#"{"name":"plain"}"#.utf8)))
    _ = try await server.start()
    try await server.serving {
      let workspace = Workspace()
      let channels = workspace.path + "/channels.json"
      try Data("[]".utf8).write(to: URL(fileURLWithPath: channels))
      let run = try await enroll(server, state: workspace.state, channels: channels)
      #expect(run.status == 1)
      #expect(try Self.line(run)["error"] == .string("invalid_descriptor"))
      #expect(!FileManager.default.fileExists(atPath: workspace.state))
    }
  }

  @Test(arguments: [
    ["--endpoint", "g", "--gateway", "http://127.0.0.1:1"], ["--transport", "gcm"], [],
  ])
  func refusesConflictingOrMissingGrantFlags(extra: [String]) async throws {
    var arguments = [
      "enroll", "--relay", "ws://127.0.0.1:1", "--secret-key-file", "k", "--state", "s", "--app-profile", "p",
    ]
    if !extra.contains("--transport") { arguments += ["--transport", "apns"] }
    let run = try await NostrPushBinary.run(arguments + extra)
    #expect(run.status == 2)
  }
}
