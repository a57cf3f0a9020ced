import Foundation
import NostrEvent

@testable import EnrichmentCache

/// A temporary folder removed when released.
final class TemporaryFolder: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "enrichment-cache-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// A path inside the folder.
  func path(_ name: String = "cache.sqlite") -> String { url.appendingPathComponent(name).path }

  /// The names of the files in the folder, sorted.
  func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }
}

/// Random 64-character lowercase hex (a stand-in key or id where no signature is involved).
func randomHex() -> String {
  (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}

/// The relay most tests use.
let testRelay = try! RelayOrigin("wss://relay.example")

/// A fixed clock for tests.
let testNow: Int64 = 1_800_000_000

/// A profile record with a fresh random id.
func profile(
  _ pubkey: String, name: String? = "Alice", picture: String? = nil, createdAt: Int64 = 100,
  id: String = randomHex()
) -> Profile {
  Profile(pubkey: pubkey, displayName: name, pictureURL: picture, eventID: id, createdAt: createdAt)
}

/// A small valid PNG header followed by `count` filler bytes.
func pngBytes(_ count: Int = 64) -> [UInt8] {
  [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0x42, count: count)
}
