import Foundation
import NostrEvent
import NostrJSON
import Testing

@testable import EnrichmentCache

/// A picture URL is kept only when it is an http(s) URL of at most 2048 bytes — on every path a
/// profile takes: parsing a kind 0, building a record, storing and reading it back.
@Suite struct ProfilePictureTests {
  static let refused = [
    "javascript:alert(1)", "ftp://media.example/a.png", "data:image/png;base64,iVBORw0KGgo=",
    "https://media.example/a b.png", "https://media.example/a\u{7}.png", "",
    "https://media.example/" + String(repeating: "a", count: Profile.maxPictureURLBytes),
  ]

  @Test(arguments: refused)
  func dropsAPictureURLWhenParsingAProfile(picture: String) throws {
    let key = SecretKey.generate()
    let content = JSONWriter.string(
      .object(JSONObject(["picture": .string(picture), "name": .string("Alice")])))
    let event = try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: 1, kind: 0, tags: [], content: content)
      .signed(with: key)
    let profile = try Profile(event: event)
    #expect(profile.displayName == "Alice")
    #expect(profile.pictureURL == nil)
  }

  @Test(arguments: refused)
  func dropsAPictureURLGivenToTheRecordAndNeverStoresIt(picture: String) throws {
    let folder = try TemporaryFolder()
    let cache = try EnrichmentCache(path: folder.path(), clock: { testNow })
    let account = randomHex()
    let sender = randomHex()
    let record = Profile(
      pubkey: sender, displayName: "Alice", pictureURL: picture, eventID: randomHex(), createdAt: 1)
    #expect(record.pictureURL == nil)
    _ = try cache.storeProfiles([record], account: account, relay: testRelay, now: testNow)
    let stored = try cache.lookupProfile(account: account, relay: testRelay, pubkey: sender, now: testNow)
    #expect(stored?.value.displayName == "Alice")
    #expect(stored?.value.pictureURL == nil)
  }

  @Test func keepsAnHTTPSPictureAtTheLimitTrimmed() throws {
    let base = "https://media.example/"
    let url = base + String(repeating: "a", count: Profile.maxPictureURLBytes - base.utf8.count)
    #expect(Profile.acceptedPictureURL("  \(url)\n") == url)
    #expect(Profile.acceptedPictureURL(url + "a") == nil)
  }
}
