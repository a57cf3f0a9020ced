import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import Testing

/// `descriptor`, `lease build|open` and `enroll` on a `buzz-push-v1` relay (`Fixtures/demo-v1`),
/// and the app-profile rule of each generation.
@Suite(.timeLimit(.minutes(2))) struct BuzzPushV1CommandTests {
  typealias L = LeaseCommandTests
  static let v1Folder = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/demo-v1")
  static let v1Descriptor = v1Folder.appendingPathComponent("nip11.json").path

  /// `lease build` arguments for `descriptor`, with the demo's app profile unless `appProfile`
  /// is nil.
  static func buildArguments(descriptor: String = v1Descriptor, appProfile: String? = nil) -> [String] {
    var arguments = L.buildArguments()
    arguments[arguments.firstIndex(of: "--descriptor")! + 1] = descriptor
    let index = arguments.firstIndex(of: "--app-profile")!
    if let appProfile {
      arguments[index + 1] = appProfile
    } else {
      arguments.removeSubrange(index...(index + 1))
    }
    return arguments
  }

  @Test func printsTheV1ProtocolAndPushObject() async throws {
    let run = try await NostrPushBinary.run(["descriptor", Self.v1Descriptor])
    #expect(run.status == 0)
    #expect(
      run.stdout.hasPrefix(
        #"{"valid":true,"protocol":"buzz-push-v1","push":{"origin":"ws://127.0.0.1:48111","#))
    let object = try L.object(run)
    #expect(object.keys == ["valid", "protocol", "push", "ignored_top_level_keys"])
    let input = try #require(
      try JSONReader().read(try Data(contentsOf: URL(fileURLWithPath: Self.v1Descriptor))).objectValue)
    #expect(object["push"] == input["push"])
    #expect(
      object["push"]?.objectValue?.keys == [
        "origin", "keys", "push_kinds", "h_grammar", "class_support", "limitation",
      ])

    let onlyV1 = try await NostrPushBinary.run([
      "descriptor", "--extension", "buzz-push-v1", Self.v1Descriptor,
    ])
    #expect(onlyV1.stdout == run.stdout)
    let onlyNipPL = try await NostrPushBinary.run(["descriptor", "--extension", "nip-pl", Self.v1Descriptor])
    #expect(onlyNipPL.status == 1)
    #expect(
      onlyNipPL.stdout
        == #"{"valid":false,"field":"supported_extensions","error":"not_advertised","message":"#
        + #""supported_extensions does not list \"nip-pl\""}"# + "\n")
  }

  @Test func buildsAV1LeaseWithoutAnAppProfileThatOpenPrintsWithANullProfile() async throws {
    let build = try await NostrPushBinary.run(Self.buildArguments())
    #expect(build.status == 0, "\(build.stdout) \(build.stderr)")
    let event = try Event(json: build.stdout.trimmingCharacters(in: .newlines))
    #expect(event.verify() == .valid(.common))

    let key = try L.file(L.pushSecret, ".key")
    defer { try? FileManager.default.removeItem(atPath: key) }
    let open = try await NostrPushBinary.run(
      [
        "lease", "open", "--descriptor", Self.v1Descriptor, "--origin", L.origin, "--now", String(L.now),
        "--push-secret-key-file", key,
      ], input: Array(build.stdout.utf8))
    #expect(open.status == 0)
    let lease = try #require(try L.object(open)["lease"]?.objectValue)
    #expect(lease["app_profile"] == .null)
    #expect(lease["transport"] == .string("apns"))
    #expect(lease["endpoint"] == .string("grant-1"))
    #expect(lease["active"] == .bool(true))
    #expect(
      lease.keys == [
        "address", "pubkey", "d", "event_id", "created_at", "expiration", "key_id", "origin", "generation",
        "active", "app_profile", "transport", "endpoint", "endpoint_hash", "subscriptions",
      ])

    // The nip-pl relay opens the same event as a lease without app_profile: refused.
    let nipPL = try await L.openRun(build.stdout)
    #expect(nipPL.stdout == #"{"accepted":false,"message":"invalid: missing app_profile"}"# + "\n")
  }

  @Test func opensANipPLLeaseOnAV1RelayAsAnUnknownField() async throws {
    let build = try await NostrPushBinary.run(L.buildArguments())
    let key = try L.file(L.pushSecret, ".key")
    defer { try? FileManager.default.removeItem(atPath: key) }
    let open = try await NostrPushBinary.run(
      [
        "lease", "open", "--descriptor", Self.v1Descriptor, "--origin", L.origin, "--now", String(L.now),
        "--push-secret-key-file", key,
      ], input: Array(build.stdout.utf8))
    #expect(open.stdout == #"{"accepted":false,"message":"invalid: unknown field: app_profile"}"# + "\n")
  }

  struct ProfileCase: Sendable, CustomTestStringConvertible {
    var note: String
    var arguments: [String]
    var testDescription: String { note }
  }

  @Test(arguments: [
    ProfileCase(
      note: "buzz-push-v1 given an app profile",
      arguments: buildArguments(appProfile: "org.nostrpushkit.demo")),
    ProfileCase(
      note: "buzz-push-v1 given a transport class_support lacks",
      arguments: buildArguments().map { $0 == "apns" ? "fcm" : $0 }),
    ProfileCase(note: "nip-pl without an app profile", arguments: buildArguments(descriptor: L.descriptor)),
  ])
  func refusesTheAppProfileRuleOfTheGeneration(_ row: ProfileCase) async throws {
    let run = try await NostrPushBinary.run(row.arguments)
    #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
    #expect(try L.object(run)["error"]?.stringValue == "invalid_app_profile")
  }

  /// `enroll` against the fixture relay serving `folder`'s NIP-11 (not in push mode), its
  /// `push.origin` a closed port: what it prints, and the state file afterwards.
  func enroll(folder: URL, appProfile: String?) async throws -> (NostrPushBinary.Run, state: String?) {
    var data = try RelayFixtureData.load(folder: folder)
    let nip11 = String(decoding: try #require(data.nip11), as: UTF8.self)
    data.nip11 = Array(
      nip11.replacingOccurrences(
        of: "ws://127.0.0.1:48111", with: try await EnrollCommandTests.closedOrigin()
      )
      .utf8)
    let server = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(now: EnrollCommandTests.now))
    _ = try await server.start()
    let workspace = EnrollCommandTests.Workspace()
    let run = try await server.serving {
      var arguments = [
        "enroll", "--relay", server.origin!, "--secret-key-file",
        folder.appendingPathComponent("account.key").path,
        "--state", workspace.state, "--transport", "apns", "--endpoint", "grant-for-tests", "--now",
        "\(EnrollCommandTests.now)",
      ]
      if let appProfile { arguments += ["--app-profile", appProfile] }
      return try await NostrPushBinary.run(arguments)
    }
    let state = try? String(contentsOfFile: workspace.state, encoding: .utf8)
    return (run, state)
  }

  @Test func enrollsOnAV1RelayWithoutAnAppProfile() async throws {
    let (run, state) = try await enroll(folder: Self.v1Folder, appProfile: nil)
    // Built and saved before signing; the publish then fails on the closed port.
    #expect(try EnrollCommandTests.line(run)["error"] == .string("transport"))
    #expect(state?.contains(#""last_generation":1"#) == true, "\(state ?? "no state")")
  }

  @Test func refusesAnAppProfileOnAV1RelayAndNoneOnANipPLRelay() async throws {
    let (v1, v1State) = try await enroll(folder: Self.v1Folder, appProfile: "org.nostrpushkit.demo")
    #expect(v1.status == 1)
    #expect(try EnrollCommandTests.line(v1)["error"] == .string("invalid_app_profile"))
    #expect(v1State == nil)
    let (nipPL, nipPLState) = try await enroll(folder: EnrollCommandTests.demo, appProfile: nil)
    #expect(nipPL.status == 1)
    #expect(try EnrollCommandTests.line(nipPL)["error"] == .string("invalid_app_profile"))
    #expect(nipPLState == nil)
  }
}
