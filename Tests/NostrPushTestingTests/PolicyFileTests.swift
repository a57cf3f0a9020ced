import Foundation
import NostrEvent
import NostrPushTesting
import Testing

/// `policy.json` and the lease rule of `events.jsonl`.
@Suite struct PolicyFileTests {
  static func folder(_ files: [String: String]) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    for (name, text) in files { try Data(text.utf8).write(to: url.appendingPathComponent(name)) }
    return url
  }

  @Test func readsTheAuthRequiredKinds() throws {
    let data = try RelayFixtureData.load(
      folder: try Self.folder(["policy.json": #"{"auth_required_kinds":[4,1059]}"#]))
    #expect(data.authRequiredKinds == [4, 1059])
  }

  @Test(arguments: [#"{"auth_required_kinds":[4],"other":1}"#, #"{"auth_required_kinds":"4"}"#, "[]"])
  func refusesABadPolicy(text: String) throws {
    let error = #expect(throws: RelayFixtureError.self) {
      _ = try RelayFixtureData.load(folder: try Self.folder(["policy.json": text]))
    }
    #expect(error?.field == "policy.json")
  }

  @Test func refusesALeaseLineInEventsJSONL() throws {
    let key = SecretKey.generate()
    let note = try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: 1, kind: 1, tags: [], content: "")
      .signed(with: key)
    let lease = try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: 1, kind: 30350, tags: [], content: "")
      .signed(with: key)
    let lines = [note, lease].map { String(decoding: $0.jsonBytes(), as: UTF8.self) }.joined(separator: "\n")
    let error = #expect(throws: RelayFixtureError.self) {
      _ = try RelayFixtureData.load(folder: try Self.folder(["events.jsonl": lines]))
    }
    #expect(error?.field == "events.jsonl:2")
    #expect(error?.message == "leases arrive only through ingest")
  }
}
