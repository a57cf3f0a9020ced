import Foundation
import NostrPushTestSupport
import NostrPushTesting
import Testing

/// Runs the built `nostr-push descriptor` on fixtures and compares its exact output.
@Suite(.timeLimit(.minutes(2))) struct DescriptorCommandTests {
  static let validFixture = fixture("Fixtures/nip11/push-descriptor.json")
  static let invalidFixture = fixture("Fixtures/nip11/push-descriptor-invalid.json")

  static let validOutput =
    #"{"valid":true,"protocol":"nip-pl","push":{"origin":"wss://push.example","keys":[{"id":"2026-11","pubkey":"#
    + #""c5fadeb5d90d68baffc631455a07ca340ccf1e31110955e16d45eb5f87147cd9","retiring":true},"#
    + #"{"id":"2026-12","pubkey":"5be6446aa8a31c11b3b453bf8dafc9b346ff328d1fa11a0fa02a1e6461f6a9b1","#
    + #""current":true}],"app_profiles":[{"id":"com.example.chat","transport":"apns"},"#
    + #"{"id":"com.example.chat.android","transport":"fcm"}],"push_kinds":[9,40002,45001,45003,1111],"#
    + #""urgent_kinds":[45003],"h_grammar":"uuid-v4-lowercase","class_support":{"apns":["silent","#
    + #""default","time_sensitive"],"fcm":["normal","high"]},"limitation":{"max_lease_ttl":2592000,"#
    + #""max_leases_per_pubkey":8,"max_subscriptions_per_lease":4,"max_kinds":16,"max_authors":256,"#
    + #""max_h":64,"max_tag_values":64,"max_ignore":128,"max_content_len":8192,"max_plaintext_len":4096,"#
    + #""max_endpoint_len":512,"max_string_len":256}},"ignored_top_level_keys":["read_state_snapshot","#
    + #""software_commit","software_commit_count"]}"# + "\n"

  static func fixture(_ path: String) -> String {
    NostrPushBinary.packageRoot.appendingPathComponent(path).path
  }

  static func run(_ arguments: [String], stdin: [UInt8] = []) async throws -> NostrPushBinary.Run {
    try await NostrPushBinary.run(arguments, input: stdin)
  }

  @Test func printsTheNormalizedDescriptorOfAValidFile() async throws {
    let run = try await Self.run(["descriptor", Self.validFixture])
    #expect(run.stdout == Self.validOutput)
    #expect(run.status == 0)
  }

  @Test func readsStandardInput() async throws {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.validFixture)))
    let run = try await Self.run(["descriptor", "-"], stdin: bytes)
    #expect(run.stdout == Self.validOutput)
    #expect(run.status == 0)
  }

  @Test func reportsTheFirstFailedCheckOfAnInvalidFile() async throws {
    let run = try await Self.run(["descriptor", Self.invalidFixture])
    #expect(
      run.stdout
        == #"{"valid":false,"field":"push.limitation.max_ignore","error":"wrong_type","message":"#
        + #""push.limitation.max_ignore must be an integer, not a boolean"}"# + "\n")
    #expect(run.status == 1)
  }

  @Test func checksTheNamedAppProfileAndTransport() async throws {
    let run = try await Self.run(
      ["descriptor", "--app-profile", "com.example.chat", "--transport", "fcm", Self.validFixture])
    #expect(
      run.stdout
        == #"{"valid":false,"field":"push.app_profiles","error":"invalid_value","message":"#
        + #""app profile \"com.example.chat\" uses transport \"apns\", not \"fcm\""}"# + "\n")
    #expect(run.status == 1)
  }

  @Test func restrictsToTheNamedGeneration() async throws {
    let run = try await Self.run(["descriptor", "--extension", "buzz-push-v1", Self.validFixture])
    #expect(
      run.stdout
        == #"{"valid":false,"field":"supported_extensions","error":"not_advertised","message":"#
        + #""supported_extensions does not list \"buzz-push-v1\""}"# + "\n")
    #expect(run.status == 1)
    let nipPL = try await Self.run(["descriptor", "--extension", "nip-pl", Self.validFixture])
    #expect(nipPL.stdout == Self.validOutput)
    #expect(nipPL.status == 0)
  }

  @Test func reportsInputThatIsNotJSONAsTheDocument() async throws {
    let run = try await Self.run(["descriptor", "-"], stdin: Array("<html></html>".utf8))
    #expect(run.stdout.hasPrefix(#"{"valid":false,"field":"document","error":"wrong_type","message":"#))
    #expect(run.status == 1)
  }

  @Test func refusesAFileOver16MiBWithoutOutput() async throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "descriptor-\(UUID().uuidString).json")
    #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
    defer { try? FileManager.default.removeItem(at: url) }
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: 16 * 1024 * 1024 + 1)
    try handle.close()
    let run = try await Self.run(["descriptor", url.path])
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("larger than 16777216 bytes"))
  }

  @Test func fetchesTheDocumentFromARelayURL() async throws {
    let nip11 = Array(try Data(contentsOf: URL(fileURLWithPath: Self.validFixture)))
    try await withRelay(RelayFixtureData(nip11: nip11)) { server in
      let relay = try #require(server.origin).replacingOccurrences(of: "http://", with: "ws://")
      let run = try await Self.run(["descriptor", relay])
      #expect(run.stdout == Self.validOutput)
      #expect(run.status == 0)
    }
  }

  @Test func reportsARelayWithoutPushAsNoPush() async throws {
    let nip11 = Array(#"{"name":"plain relay","supported_nips":[1,11]}"#.utf8)
    try await withRelay(RelayFixtureData(nip11: nip11)) { server in
      let relay = try #require(server.origin).replacingOccurrences(of: "http://", with: "ws://")
      let run = try await Self.run(["descriptor", relay])
      #expect(
        run.stdout
          == #"{"valid":false,"field":"push","error":"no_push","message":"this relay does not offer NIP-PL push: its NIP-11 has no `push`"}"#
          + "\n")
      #expect(run.status == 1)
    }
  }

  @Test func reportsAnUnreachableRelayAsTransport() async throws {
    let run = try await Self.run(["descriptor", "ws://127.0.0.1:1"])
    #expect(run.stdout.hasPrefix(#"{"valid":false,"field":"http","error":"transport","message":"#))
    #expect(run.status == 1)
  }

  @Test(arguments: [
    [String](), ["--app-profile", "x", "f.json"], ["--transport", "apns", "f.json"],
    ["--app-profile", "x", "--transport", "webpush", "f.json"], ["--bogus", "f.json"], ["a.json", "b.json"],
    ["--extension", "nip-pl-2", "f.json"], ["--extension", "", "f.json"],
  ])
  func refusesBadArgumentsWithStatus2(_ arguments: [String]) async throws {
    let run = try await Self.run(["descriptor"] + arguments)
    #expect(run.status == 2)
    #expect(run.stdout.isEmpty)
  }
}
