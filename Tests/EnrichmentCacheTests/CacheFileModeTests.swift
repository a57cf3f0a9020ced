import Foundation
import Testing

@testable import EnrichmentCache

/// `Docs/Robustness.md`: the cache holds the account's profiles, channels and delivered messages,
/// so the file and its `-wal`/`-shm` are created readable by their owner alone, whatever the
/// process's umask.
@Suite struct CacheFileModeTests {
  @Test func theCacheFileAndItsJournalsAreCreatedOwnerOnly() throws {
    let folder = try TemporaryFolder()
    let path = folder.path()
    let cache = try EnrichmentCache(path: path)
    defer { withExtendedLifetime(cache) {} }
    for suffix in ["", "-wal", "-shm"] {
      let attributes = try FileManager.default.attributesOfItem(atPath: path + suffix)
      let mode = (attributes[.posixPermissions] as? NSNumber).map { $0.intValue & 0o777 }
      #expect(mode == 0o600, "\(path + suffix)")
    }
  }
}
