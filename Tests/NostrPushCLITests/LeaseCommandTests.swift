import Foundation
import NostrEvent
import NostrJSON
import Testing

/// Runs the built `nostr-push lease build|tombstone|open` (`Docs/EnrollingFromAnApp.md`'s CLI section).
@Suite struct LeaseCommandTests {
  static let descriptor = DescriptorCommandTests.fixture("Fixtures/demo/nip11.json")
  static let invalidDescriptor = DescriptorCommandTests.fixture("Fixtures/nip11/push-descriptor-invalid.json")
  static let accountKey = DescriptorCommandTests.fixture("Fixtures/demo/account.key")
  static let account = "399d6ff92ba573392e3067909bd72e421508966f7048d379222f908afe996fe4"
  /// The demo relay's push secret key (`Fixtures/demo/keys.json`, a test key).
  static let pushSecret = "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098"
  static let origin = "ws://127.0.0.1:48111"
  static let d = "00112233445566778899aabbccddeeff"
  static let now: Int64 = 1_767_225_600
  static let channelA = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
  static let channelB = "9e8d7c6b-5a49-4382-b716-05f4e3d2c1b0"

  /// A temporary file holding `text`, removed by the caller.
  static func file(_ text: String, _ suffix: String = ".json") throws -> String {
    let path = NSTemporaryDirectory() + "lease-test-" + UUID().uuidString + suffix
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// `count` distinct channel ids as a JSON array.
  static func channels(_ count: Int) -> String {
    "["
      + (0..<count).map { String(format: "\"%08x-0000-4000-8000-000000000000\"", $0) }.joined(separator: ",")
      + "]"
  }

  static func buildArguments(_ extra: [String] = [], generation: String = "1") -> [String] {
    [
      "lease", "build", "--descriptor", descriptor, "--secret-key-file", accountKey, "--endpoint", "grant-1",
      "--app-profile", "org.nostrpushkit.demo", "--transport", "apns", "--generation", generation, "--d", d,
      "--now", String(now),
    ] + extra
  }

  static func openRun(
    _ event: String, origin: String = origin, keys: [String]? = nil, descriptor: String = descriptor
  ) async throws -> NostrPushBinary.Run {
    let key = try file(pushSecret, ".key")
    defer { try? FileManager.default.removeItem(atPath: key) }
    var arguments = ["lease", "open", "--descriptor", descriptor, "--origin", origin, "--now", String(now)]
    for path in keys ?? [key] { arguments += ["--push-secret-key-file", path] }
    return try await NostrPushBinary.run(arguments, input: Array(event.utf8))
  }

  /// The one output line as a JSON object.
  static func object(_ run: NostrPushBinary.Run) throws -> JSONObject {
    #expect(run.stdout.hasSuffix("\n") && run.stdout.filter { $0 == "\n" }.count == 1, "\(run.stdout)")
    return try #require(try JSONReader().read(run.stdout).objectValue)
  }

  @Test func buildsALeaseThatOpenPrintsExactly() async throws {
    let channels = try Self.file("[\"\(Self.channelB)\",\"\(Self.channelA)\"]")
    let muted = try Self.file("[\"\(Self.channelB)\"]")
    defer { for path in [channels, muted] { try? FileManager.default.removeItem(atPath: path) } }
    let build = try await NostrPushBinary.run(
      Self.buildArguments([
        "--channels", channels, "--muted", muted, "--grant-expires", String(Self.now + 3600),
      ]))
    #expect(build.status == 0, "\(build.stdout) \(build.stderr)")
    let event = try Event(json: build.stdout.trimmingCharacters(in: .newlines))
    #expect(event.verify() == .valid(.common))
    #expect(event.kind == 30350)
    #expect(
      event.tags == [["d", Self.d], ["expiration", String(Self.now + 3600)], ["exec", "demo-2026-01"]])

    let open = try await Self.openRun(build.stdout)
    #expect(open.status == 0)
    let me = Self.account
    let ignore =
      ##"[{"kinds":[9,40002,45001,45003],"authors":["\##(me)"]},{"kinds":[9],"#h":["\##(Self.channelB)"]}]"##
    let expected =
      ##"{"accepted":true,"lease":{"address":"30350:\##(me):\##(Self.d)","pubkey":"\##(me)","d":"\##(Self.d)","##
      + ##""event_id":"\##(event.id)","created_at":\##(Self.now),"expiration":\##(Self.now + 3600),"##
      + ##""key_id":"demo-2026-01","origin":"\##(Self.origin)","generation":1,"active":true,"##
      + ##""app_profile":"org.nostrpushkit.demo","transport":"apns","endpoint":"grant-1","##
      + ##""endpoint_hash":"\##(Hex.encode(NostrSHA256.hash(Array("grant-1".utf8))))","subscriptions":["##
      + ##"{"filter":{"kinds":[9,40002,45001,45003],"#p":["\##(me)"]},"class":"default","ignore":\##(ignore),"##
      + ##""suppress":{"p_tags_max":20}},{"filter":{"kinds":[9],"#h":["\##(Self.channelA)"]},"class":"default","##
      + ##""ignore":\##(ignore),"suppress":{"p_tags_max":20}}]}}"## + "\n"
    #expect(open.stdout == expected)
  }

  @Test func writesSubscriptionsFromAFileInTheSpecsOrder() async throws {
    let subscriptions = try Self.file(
      ##"[{"suppress":null,"class":"time_sensitive","filter":{"#p":["\##(Self.account)"],"kinds":[9]}}]"##)
    defer { try? FileManager.default.removeItem(atPath: subscriptions) }
    let build = try await NostrPushBinary.run(Self.buildArguments(["--subscriptions", subscriptions]))
    #expect(build.status == 0, "\(build.stdout)")
    let open = try Self.object(try await Self.openRun(build.stdout))
    let lease = try #require(open["lease"]?.objectValue)
    #expect(
      lease["subscriptions"]
        == .array([
          .object(
            JSONObject([
              "filter": .object(
                JSONObject(["kinds": .array([.integer(9)]), "#p": .array([.string(Self.account)])])),
              "class": .string("time_sensitive"), "ignore": .array([]), "suppress": .null,
            ]))
        ]))
  }

  /// `Fixtures/demo/nip11.json` (whose `push_kinds` list 1059) with 1059 taken out, in a
  /// temporary file.
  static func descriptorWithoutGiftWraps() throws -> String {
    let text = try String(contentsOfFile: descriptor, encoding: .utf8)
    let changed = text.replacingOccurrences(
      of: #""push_kinds": [9,40002,45001,45003,1059]"#, with: #""push_kinds": [9,40002,45001,45003]"#)
    #expect(changed != text)
    return try file(changed)
  }

  @Test func addsTheDirectMessageSubscriptionWhenAsked() async throws {
    let build = try await NostrPushBinary.run(Self.buildArguments(["--direct-messages"]))
    #expect(build.status == 0, "\(build.stdout) \(build.stderr)")
    let open = try Self.object(try await Self.openRun(build.stdout))
    let subscriptions = try #require(open["lease"]?.objectValue?["subscriptions"]?.arrayValue)
    #expect(subscriptions.count == 2)
    #expect(
      subscriptions.last.map { JSONWriter.string($0) }
        == ##"{"filter":{"kinds":[1059],"#p":["\##(Self.account)"]},"class":"default","ignore":[],"suppress":null}"##
    )
  }

  @Test func addsNoDirectMessageSubscriptionWhenTheRelayDoesNotPushGiftWraps() async throws {
    let descriptor = try Self.descriptorWithoutGiftWraps()
    defer { try? FileManager.default.removeItem(atPath: descriptor) }
    var arguments = Self.buildArguments(["--direct-messages"])
    arguments[arguments.firstIndex(of: Self.descriptor)!] = descriptor
    let build = try await NostrPushBinary.run(arguments)
    #expect(build.status == 0, "\(build.stdout) \(build.stderr)")
    let open = try Self.object(try await Self.openRun(build.stdout, descriptor: descriptor))
    let subscriptions = try #require(open["lease"]?.objectValue?["subscriptions"]?.arrayValue)
    #expect(subscriptions.count == 1)
    #expect(subscriptions.first?.objectValue?["filter"]?.objectValue?["kinds"]?.arrayValue?.count == 4)
  }

  @Test func buildsATombstoneThatOpenPrintsWithNulls() async throws {
    let run = try await NostrPushBinary.run([
      "lease", "tombstone", "--descriptor", Self.descriptor, "--secret-key-file", Self.accountKey, "--d",
      Self.d,
      "--generation", "9", "--now", String(Self.now),
    ])
    #expect(run.status == 0)
    let event = try Event(json: run.stdout.trimmingCharacters(in: .newlines))
    #expect(event.tags[1] == ["expiration", String(Self.now + 2_592_000 - 300)])
    let open = try await Self.openRun(run.stdout)
    #expect(
      open.stdout
        == ##"{"accepted":true,"lease":{"address":"30350:\##(Self.account):\##(Self.d)","pubkey":"\##(Self.account)","##
        + ##""d":"\##(Self.d)","event_id":"\##(event.id)","created_at":\##(Self.now),"##
        + ##""expiration":\##(Self.now + 2_591_700),"key_id":"demo-2026-01","origin":"\##(Self.origin)","generation":9,"##
        + ##""active":false,"app_profile":null,"transport":null,"endpoint":null,"endpoint_hash":null,"##
        + ##""subscriptions":null}}"## + "\n")
  }

  @Test func anwersARejectedLeaseWithTheValidatorsText() async throws {
    let build = try await NostrPushBinary.run(Self.buildArguments())
    let open = try await Self.openRun(build.stdout, origin: "wss://elsewhere.example")
    #expect(open.status == 0)
    #expect(open.stdout == ##"{"accepted":false,"message":"invalid: origin mismatch"}"## + "\n")
  }

  /// A refused `build`: the extra or replaced arguments, and the code expected.
  struct ErrorCase: Sendable, CustomTestStringConvertible {
    var code: String
    var note: String
    var replace: [String: String] = [:]
    var extra: [String: String] = [:]
    var testDescription: String { "\(code): \(note)" }
  }

  static let badKey = "bad key"

  @Test(arguments: [
    ErrorCase(
      code: "invalid_descriptor", note: "before the key",
      replace: ["--descriptor": "INVALID", "--secret-key-file": "BADKEY"]),
    ErrorCase(
      code: "invalid_descriptor", note: "no such file", replace: ["--descriptor": "/nonexistent/nip11.json"]),
    ErrorCase(
      code: "invalid_secret_key", note: "before the app profile",
      replace: ["--secret-key-file": "BADKEY", "--app-profile": "x"]),
    ErrorCase(
      code: "invalid_app_profile", note: "another transport, before the endpoint",
      replace: ["--transport": "fcm", "--endpoint": ""]),
    ErrorCase(
      code: "invalid_endpoint", note: "empty, before the generation",
      replace: ["--endpoint": "", "--generation": "x"]),
    ErrorCase(
      code: "invalid_generation", note: "not an integer, before d",
      replace: ["--generation": "", "--d": "XY"]),
    ErrorCase(code: "invalid_generation", note: "2^53", replace: ["--generation": "9007199254740992"]),
    ErrorCase(
      code: "invalid_installation_id", note: "before the channels", replace: ["--d": "XY"],
      extra: ["--channels": "[\"general\"]"]),
    ErrorCase(code: "invalid_channel_id", note: "not a UUID v4", extra: ["--channels": "[\"general\"]"]),
    ErrorCase(code: "invalid_channel_id", note: "not an array", extra: ["--muted": "{}"]),
    ErrorCase(
      code: "too_many_muted_channels", note: "nine ignores",
      extra: ["--channels": channels(225), "--muted": channels(225)]),
    ErrorCase(
      code: "too_many_subscriptions", note: "five subscriptions", extra: ["--channels": channels(97)]),
    ErrorCase(
      code: "invalid_subscriptions", note: "none, before the grant",
      extra: ["--subscriptions": "[]", "--grant-expires": "0"]),
    ErrorCase(code: "grant_expired", note: "the grant ends now", extra: ["--grant-expires": "1767225600"]),
    ErrorCase(
      code: "plaintext_too_long", note: "four subscriptions of 64 authors",
      extra: [
        "--subscriptions": "["
          + Array(
            repeating: ##"{"filter":{"kinds":[9],"authors":"## + "["
              + Array(repeating: "\"\(String(repeating: "ab", count: 32))\"", count: 64).joined(
                separator: ",") + ##"]},"class":"default"}"##, count: 4
          ).joined(separator: ",") + "]"
      ]),
  ])
  func refusesTheFirstFailingInputWithItsCode(_ row: ErrorCase) async throws {
    var arguments = Self.buildArguments()
    var cleanup: [String] = []
    defer { for path in cleanup { try? FileManager.default.removeItem(atPath: path) } }
    for (flag, value) in row.replace {
      let index = try #require(arguments.firstIndex(of: flag))
      switch value {
      case "INVALID": arguments[index + 1] = Self.invalidDescriptor
      case "BADKEY":
        let path = try Self.file("not a key", ".key")
        cleanup.append(path)
        arguments[index + 1] = path
      default: arguments[index + 1] = value
      }
    }
    for (flag, value) in row.extra.sorted(by: { $0.key < $1.key }) {
      if flag == "--grant-expires" {
        arguments += [flag, value]
      } else {
        let path = try Self.file(value)
        cleanup.append(path)
        arguments += [flag, path]
      }
    }
    let run = try await NostrPushBinary.run(arguments)
    #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
    let object = try Self.object(run)
    #expect(object.keys == ["error", "message"])
    #expect(object["error"]?.stringValue == row.code, "\(run.stdout)")
  }

  @Test func reportsTheValidatorsFullTextForInvalidSubscriptions() async throws {
    let subscriptions = try Self.file(##"[{"filter":{"kinds":[9]},"class":"default"}]"##)
    defer { try? FileManager.default.removeItem(atPath: subscriptions) }
    let run = try await NostrPushBinary.run(Self.buildArguments(["--subscriptions", subscriptions]))
    #expect(run.status == 1)
    #expect(
      run.stdout == ##"{"error":"invalid_subscriptions","message":"invalid: lease filter not narrowed"}"##
        + "\n")
  }

  @Test func refusesContentOverMaxContentLen() async throws {
    var push = try #require(
      try JSONReader().read(try Data(contentsOf: URL(fileURLWithPath: Self.descriptor))).objectValue)
    var inner = try #require(push["push"]?.objectValue)
    var limitation = try #require(inner["limitation"]?.objectValue)
    limitation["max_content_len"] = .integer(200)
    inner["limitation"] = .object(limitation)
    push["push"] = .object(inner)
    let path = try Self.file(JSONWriter.string(.object(push)))
    defer { try? FileManager.default.removeItem(atPath: path) }
    var arguments = Self.buildArguments()
    arguments[arguments.firstIndex(of: "--descriptor")! + 1] = path
    let run = try await NostrPushBinary.run(arguments)
    #expect(run.status == 1)
    #expect(try Self.object(run)["error"]?.stringValue == "content_too_long")
  }

  @Test func checksTheTombstoneInputsInOrder() async throws {
    let base = [
      "lease", "tombstone", "--descriptor", Self.descriptor, "--secret-key-file", Self.accountKey, "--now",
      String(Self.now),
    ]
    let generation = try await NostrPushBinary.run(base + ["--d", "XY", "--generation", "0"])
    #expect(try Self.object(generation)["error"]?.stringValue == "invalid_generation")
    let d = try await NostrPushBinary.run(base + ["--d", "XY", "--generation", "1"])
    #expect(try Self.object(d)["error"]?.stringValue == "invalid_installation_id")
    #expect(d.status == 1)
  }

  @Test func refusesAPushKeyTheDescriptorDoesNotList() async throws {
    let open = try await Self.openRun("{}", keys: [Self.accountKey])
    #expect(open.status == 1)
    #expect(try Self.object(open)["error"]?.stringValue == "unknown_push_key")
  }

  @Test func refusesAnInvalidEventWithVerifysCodes() async throws {
    let malformed = try await Self.openRun("{")
    #expect(malformed.status == 1)
    #expect(try Self.object(malformed)["error"]?.stringValue == "malformed_json")
    let build = try await NostrPushBinary.run(Self.buildArguments())
    let tampered = build.stdout.replacingOccurrences(of: "\"kind\":30350", with: "\"kind\":30351")
    let mismatch = try await Self.openRun(tampered)
    #expect(mismatch.status == 1)
    #expect(try Self.object(mismatch)["error"]?.stringValue == "id_mismatch")
  }

  @Test(arguments: [
    ["lease"], ["lease", "renew"], ["lease", "build", "--descriptor", "x"],
    buildArguments(["--mentions-only", "--subscriptions", "x"]),
    buildArguments(["--channels", "x", "--subscriptions", "y"]),
    buildArguments(["--direct-messages", "--subscriptions", "x"]),
    buildArguments(["--transport", "webpush"]).filter { $0 != "apns" },
    ["lease", "open", "--descriptor", "x", "--origin", "o"],
  ])
  func exitsTwoOnAUsageError(_ arguments: [String]) async throws {
    let run = try await NostrPushBinary.run(arguments)
    #expect(run.status == 2, "\(arguments)")
    #expect(run.stdout.isEmpty)
  }
}
