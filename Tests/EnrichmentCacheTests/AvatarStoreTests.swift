import Foundation
import Testing

@testable import EnrichmentCache

@Suite struct AvatarStoreTests {
  let folder: TemporaryFolder
  let cache: EnrichmentCache
  let account = randomHex()
  let sender = randomHex()
  let url = "https://images.example/alice.png"

  init() throws {
    folder = try TemporaryFolder()
    cache = try EnrichmentCache(path: folder.path())
  }

  func storeProfile(picture: String?, createdAt: Int64) throws {
    _ = try cache.storeProfiles(
      [profile(sender, picture: picture, createdAt: createdAt)], account: account, relay: testRelay,
      now: testNow)
  }

  func storeAvatar(_ bytes: [UInt8] = pngBytes(), url: String? = nil) throws -> StoreOutcome {
    try cache.storeAvatar(
      account: account, relay: testRelay, pubkey: sender, url: url ?? self.url, bytes: bytes, etag: "\"v1\"",
      lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", now: testNow)
  }

  func lookup(now: Int64 = testNow) throws -> Cached<Avatar>? {
    try cache.lookupAvatar(account: account, relay: testRelay, pubkey: sender, now: now)
  }

  @Test(
    arguments: [
      ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], ImageFormat.png),
      ([0xFF, 0xD8, 0xFF, 0xE0, 0], .jpeg),
      (Array("GIF89a..".utf8), .gif),
      (Array("GIF87a..".utf8), .gif),
      (Array("RIFF\u{1}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), .webp),
    ] as [([UInt8], ImageFormat)])
  func recognisesImageFormats(bytes: [UInt8], format: ImageFormat) {
    #expect(ImageFormat(sniffing: bytes) == format)
  }

  @Test(arguments: [
    Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), Array("RIFF\u{1}\u{0}\u{0}\u{0}WAVE".utf8),
    [0x89, 0x50, 0x4E], [],
  ])
  func refusesOtherBytes(bytes: [UInt8]) throws {
    try storeProfile(picture: url, createdAt: 100)
    let error = try #require(throws: CacheError.self) { try storeAvatar(bytes) }
    #expect(error.code == .invalidImage)
    #expect(error.field == "bytes")
  }

  @Test func refusesAnImageOverFiveHundredTwelveKibibytes() throws {
    try storeProfile(picture: url, createdAt: 100)
    #expect(try storeAvatar(pngBytes(Avatar.maxBytes - 8)) == .stored)
    let error = try #require(throws: CacheError.self) { try storeAvatar(pngBytes(Avatar.maxBytes - 7)) }
    #expect(error.code == .invalidImage)
  }

  @Test func storesAndReturnsTheAvatarOfTheCurrentPicture() throws {
    try storeProfile(picture: url, createdAt: 100)
    #expect(try storeAvatar() == .stored)
    let found = try #require(try lookup())
    #expect(found.value.bytes == pngBytes())
    #expect(found.value.contentType == "image/png")
    #expect(found.value.etag == "\"v1\"")
    #expect(found.isFresh)
    #expect(try lookup(now: testNow + 3600)?.isFresh == false)
  }

  /// A full-size avatar is bound in place (no copy) and written through a page cache smaller
  /// than itself (its pages spill to the WAL): every byte comes back, from this connection and
  /// from a new one.
  @Test func storesAFullSizeAvatarBytePerfectThroughTheSmallPageCache() throws {
    #expect(CacheOpener.pageCacheKiB * 1024 < Avatar.maxBytes)
    try storeProfile(picture: url, createdAt: 100)
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let bytes =
      png + (0..<(Avatar.maxBytes - png.count)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
    #expect(try storeAvatar(bytes) == .stored)
    #expect(try lookup()?.value.bytes == bytes)
    let reopened = try EnrichmentCache(path: folder.path())
    let found = try reopened.lookupAvatar(account: account, relay: testRelay, pubkey: sender, now: testNow)
    #expect(found?.value.bytes == bytes)
  }

  @Test func discardsADownloadForAPictureThatIsNoLongerCurrent() throws {
    try storeProfile(picture: url, createdAt: 100)
    #expect(try storeAvatar(url: "https://images.example/old.png") == .ignoredOlder)
    #expect(try lookup() == nil)
  }

  @Test func aChangedPictureMakesTheOldAvatarUnusableAtOnce() throws {
    try storeProfile(picture: url, createdAt: 100)
    _ = try storeAvatar()
    try storeProfile(picture: "https://images.example/new.png", createdAt: 200)
    #expect(try lookup() == nil)
    #expect(try cache.stats().avatars == 0)
  }

  @Test func aProfileWithoutPictureClearsTheAvatar() throws {
    try storeProfile(picture: url, createdAt: 100)
    _ = try storeAvatar()
    try storeProfile(picture: nil, createdAt: 200)
    #expect(try lookup() == nil)
    #expect(try cache.stats().avatars == 0)
  }

  @Test func aNotModifiedAnswerRenewsTheAvatar() throws {
    try storeProfile(picture: url, createdAt: 100)
    _ = try cache.storeAvatar(
      account: account, relay: testRelay, pubkey: sender, url: url, bytes: pngBytes(), etag: nil,
      lastModified: nil,
      now: testNow - 7200)
    #expect(try lookup()?.isFresh == false)
    #expect(
      try cache.renewAvatar(account: account, relay: testRelay, pubkey: sender, url: url, now: testNow)
        == .renewed)
    #expect(try lookup()?.isFresh == true)
  }
}
