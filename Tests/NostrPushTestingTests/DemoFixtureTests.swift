import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct DemoFixtureTests {
  /// `Fixtures/demo` of this repository, found from this file's path.
  static var folder: URL { PackageRoot.appending("Fixtures/demo") }

  static func manifest() throws -> JSONObject {
    let bytes = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
    return try #require(try JSONReader().read(Array(bytes)).objectValue)
  }

  @Test func holdsOnlyValidSignedEvents() throws {
    let data = try RelayFixtureData.load(folder: Self.folder)
    #expect(data.problems.isEmpty)
    #expect(data.events.count == 8)
    #expect(data.events.allSatisfy { $0.verify().isValid })
  }

  @Test func matchesTheFactsInItsManifest() throws {
    let data = try RelayFixtureData.load(folder: Self.folder)
    let manifest = try Self.manifest()
    let ids = try #require(manifest["events"]?.objectValue)
    let byID = Dictionary(uniqueKeysWithValues: data.events.map { ($0.id, $0) })
    let channel = try #require(manifest["channel_id"]?.stringValue)
    let relay = try #require(manifest["relay_pubkey"]?.stringValue)
    let account = try #require(manifest["account_pubkey"]?.stringValue)
    let sender = try #require(manifest["sender_pubkey"]?.stringValue)
    let metadata = try #require(ids["channel_metadata"]?.stringValue.flatMap { byID[$0] })
    #expect(metadata.kind == 39000 && metadata.pubkey == relay)
    #expect(metadata.tagValues("d") == [channel] && metadata.tagValues("t") == ["stream"])
    let membership = try #require(ids["membership"]?.stringValue.flatMap { byID[$0] })
    #expect(membership.kind == 39002 && membership.pubkey == relay)
    #expect(Set(membership.tagValues("p")).isSuperset(of: [account, sender]))
    let thread = try #require(ids["thread_reply"]?.stringValue.flatMap { byID[$0] })
    #expect(thread.tags.contains { $0.count >= 4 && $0[0] == "e" && $0[3] == "reply" })
    let broadcast = try #require(ids["broadcast_reply"]?.stringValue.flatMap { byID[$0] })
    #expect(broadcast.tags.contains(["broadcast", "1"]))
    #expect(data.media["avatar.png"]?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
    let nip11 = try JSONReader().read(try #require(data.nip11)).objectValue
    #expect(nip11?["self"]?.stringValue == relay)
  }

  @Test func servesTheDemoMessagesToTheAccount() async throws {
    let data = try RelayFixtureData.load(folder: Self.folder)
    let manifest = try Self.manifest()
    let keys = try JSONReader().read(
      Array(try Data(contentsOf: Self.folder.appendingPathComponent("keys.json"))))
    let secret = try #require(keys.objectValue?["account"]?.objectValue?["secret_key"]?.stringValue)
    let account = try SecretKey(hex: secret)
    let now: Int64 = 1_767_226_200
    try await Scenario.serving(data, configuration: RelayFixtureConfiguration(now: now)) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let filters = ##"[{"kinds":[9,40002,45001,45003],"#p":["\##(account.publicKeyHex)"],"limit":10}]"##
      let response = try await client.query(origin, filters, key: account, now: now)
      let avatar = try await client.media(origin, "avatar.png", key: account, now: now)
      let ids = try #require(manifest["events"]?.objectValue)
      let expected = ["broadcast_reply", "thread_reply", "carol_reply", "root_message"].compactMap {
        ids[$0]?.stringValue
      }
      #expect(try eventIDs(response.body) == expected)
      #expect(avatar.status == 200)
      #expect(avatar.header("Content-Type") == "image/png")
    }
  }
}
