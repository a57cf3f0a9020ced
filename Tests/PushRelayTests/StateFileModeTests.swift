import Foundation
import PushRelay
import Testing

/// `Docs/Robustness.md`: the relay's state file holds each lease's decrypted subscriptions and
/// endpoint grant, so it and its `-wal`/`-shm` are created readable by their owner alone,
/// whatever the process's umask.
@Suite struct StateFileModeTests {
  @Test func theStateFileAndItsJournalsAreCreatedOwnerOnly() throws {
    let path = Demo.temporaryPath("mode-state")
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let database = try PushStateDatabase(path: path)
    #expect(try database.schemaVersion() > 0)
    for suffix in ["", "-wal", "-shm"] {
      #expect(FileMode.of(path + suffix) == 0o600, "\(path + suffix)")
    }
  }
}

/// The permission bits of a file, nil when it does not exist.
enum FileMode {
  static func of(_ path: String) -> Int? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let mode = attributes[.posixPermissions] as? NSNumber
    else { return nil }
    return mode.intValue & 0o777
  }
}
