#if os(Linux)
import AppAttest
import Foundation
import NostrEvent
import NostrJSON
import Testing

/// Runs the built `nostr-push attest verify` and `attest assert` (`Docs/CommandLine.md`) on real
/// device captures of `Fixtures/vectors/app-attest/vectors.json`.
@Suite struct AttestCommandTests {
  /// One vector's fields, as the file gives them.
  static func vector(_ id: String) throws -> [String: Any] {
    let data = try Data(
      contentsOf: NostrPushBinary.packageRoot.appendingPathComponent(
        "Fixtures/vectors/app-attest/vectors.json"))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let vectors = try #require(root["vectors"] as? [[String: Any]])
    return try #require(vectors.first { $0["id"] as? String == id })
  }

  /// A temporary file holding `bytes`, removed by the caller.
  final class Folder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("attest-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
      let path = url.appendingPathComponent(name)
      try Data(bytes).write(to: path)
      return path.path
    }
  }

  static func base64(_ text: Any?) throws -> [UInt8] {
    let string = try #require(text as? String)
    return try #require(AppAttestBase64.decode(string))
  }

  /// The one output line as an object, after checking the exit status.
  static func answer(_ arguments: [String], status: Int32 = 0) async throws -> JSONObject {
    let run = try await NostrPushBinary.run(["attest"] + arguments)
    #expect(run.status == status, "\(arguments): \(run.stdout) \(run.stderr)")
    #expect(run.stdout.filter { $0 == "\n" }.count == 1, "\(run.stdout)")
    return try #require(try JSONReader().read(run.stdout).objectValue)
  }

  /// `attest verify` arguments for the attestation vector `id` (the file as base64url text).
  static func verifyArguments(_ id: String, in folder: Folder) throws -> [String] {
    let vector = try vector(id)
    let attestation = try base64(vector["attestation_b64"])
    return [
      "verify", "--attestation",
      try folder.file(id + ".b64", Array(AppAttestBase64.urlEncoded(attestation).utf8)),
      "--key-id", try #require(vector["key_id_b64"] as? String),
      "--client-data", try folder.file(id + ".client", try base64(vector["client_data_b64"])),
      "--app-id",
      "\(try #require(vector["team_id"] as? String)).\(try #require(vector["bundle_id"] as? String))",
      "--environment", try #require(vector["environment"] as? String),
      "--at", try #require(vector["verification_time"] as? String),
    ]
  }

  /// `arguments` with the value of `flag` replaced.
  static func replacing(_ flag: String, with value: String, in arguments: [String]) throws -> [String] {
    var arguments = arguments
    let index = try #require(arguments.firstIndex(of: flag))
    arguments[index + 1] = value
    return arguments
  }

  @Test func verifyPrintsTheKeyOfARealAttestationAndTheStepOfEachFailure() async throws {
    let folder = try Folder()
    let arguments = try Self.verifyArguments("uebelack-production-attestation", in: folder)
    let valid = try await Self.answer(arguments)
    #expect(valid.keys == ["valid", "public_key", "receipt_bytes"])
    #expect(valid["valid"]?.boolValue == true)
    let pem = try #require(valid["public_key"]?.stringValue)
    let point = try AppAttestPublicKey.point(pem: Array(pem.utf8))
    let keyID = try Self.base64(try Self.vector("uebelack-production-attestation")["key_id_b64"])
    #expect(NostrSHA256.hash(point) == keyID)
    #expect((valid["receipt_bytes"]?.integerValue ?? 0) > 1000)

    let failures: [(String, String, String)] = [
      ("--at", "2027-01-01T00:00:00Z", "certificate_not_valid_at_time"),
      ("--app-id", "0000000000.org.example.other", "rp_id_mismatch"),
      ("--environment", "development", "aaguid_mismatch"),
      ("--client-data", try folder.file("other.client", Array("other".utf8)), "nonce_mismatch"),
      ("--key-id", AppAttestBase64.encoded([UInt8](repeating: 1, count: 32)), "key_id_mismatch"),
    ]
    for (flag, value, step) in failures {
      let answer = try await Self.answer(try Self.replacing(flag, with: value, in: arguments))
      #expect(answer == JSONObject(["valid": .bool(false), "step": .string(step)]), "\(flag) \(value)")
    }
    // The client data's hash in place of the client data; another root.
    let clientData = try Self.base64(try Self.vector("uebelack-production-attestation")["client_data_b64"])
    var byHash = arguments
    let index = try #require(byHash.firstIndex(of: "--client-data"))
    byHash.replaceSubrange(
      index...(index + 1),
      with: ["--client-data-hash", AppAttestBase64.urlEncoded(NostrSHA256.hash(clientData))])
    #expect(try await Self.answer(byHash)["valid"]?.boolValue == true)
    let otherRoot = try folder.file(
      "root.pem",
      Array(try Data(contentsOf: URL(fileURLWithPath: "/etc/ssl/certs/ca-certificates.crt")).prefix(4096)))
    let untrusted = try await Self.answer(arguments + ["--root", otherRoot])
    #expect(untrusted["step"]?.stringValue == "untrusted_certificate_chain")
  }

  @Test func assertPrintsTheCounterOfARealAssertionOrTheStep() async throws {
    let folder = try Folder()
    let vector = try Self.vector("uebelack-assertion")
    let pem = try folder.file("key.pem", Array(try #require(vector["public_key_pem"] as? String).utf8))
    let assertion = try folder.file(
      "assertion.b64", Array(try #require(vector["assertion_b64"] as? String).utf8))
    let client = try folder.file("client", try Self.base64(vector["client_data_b64"]))
    let appID =
      "\(try #require(vector["team_id"] as? String)).\(try #require(vector["bundle_id"] as? String))"
    let expected = try #require(vector["expected_counter"] as? Int)
    let arguments = [
      "assert", "--assertion", assertion, "--public-key", pem, "--client-data", client, "--app-id", appID,
      "--previous-counter", String(try #require(vector["previous_counter"] as? Int)),
    ]
    #expect(
      try await Self.answer(arguments)
        == JSONObject(["valid": .bool(true), "counter": .integer(Int64(expected))]))
    let replayed = try Self.replacing("--previous-counter", with: String(expected), in: arguments)
    #expect(try await Self.answer(replayed)["step"]?.stringValue == "counter_not_increasing")
    let other = try Self.replacing("--client-data", with: try folder.file("other", [1]), in: arguments)
    #expect(try await Self.answer(other)["step"]?.stringValue == "invalid_signature")
  }

  @Test func usageErrorsExitTwoAndUnreadableInputsExitOne() async throws {
    let folder = try Folder()
    let arguments = try Self.verifyArguments("bas-d-attestation", in: folder)
    #expect(try await Self.answer(arguments)["valid"]?.boolValue == true)
    for broken in [
      Array(arguments.dropLast(2)),  // no --at
      try Self.replacing("--environment", with: "staging", in: arguments),
      arguments + ["--client-data-hash", "AAAA"],
      arguments + ["--unknown", "1"],
      ["sign"],
      [],
    ] {
      let run = try await NostrPushBinary.run(["attest"] + broken)
      #expect(run.status == 2, "\(broken)")
      #expect(run.stdout.isEmpty)
    }
    let missing = try Self.replacing("--attestation", with: folder.url.path + "/absent", in: arguments)
    #expect(try await Self.answer(missing, status: 1)["error"]?.stringValue == "unreadable_file")
    let notBase64 = try Self.replacing("--key-id", with: "not base64!", in: arguments)
    #expect(try await Self.answer(notBase64, status: 1)["error"]?.stringValue == "invalid_base64")
    let badTime = try Self.replacing("--at", with: "yesterday", in: arguments)
    #expect(try await Self.answer(badTime, status: 1)["error"]?.stringValue == "invalid_time")
    let badApp = try Self.replacing("--app-id", with: "nodot", in: arguments)
    #expect(try await Self.answer(badApp, status: 1)["error"]?.stringValue == "invalid_app_id")
  }
}
#endif
