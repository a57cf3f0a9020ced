import Foundation
import NostrEvent
import NostrJSON

/// The demo world's parties, read from `Fixtures/demo`'s `keys.json` and `manifest.json`: the
/// account that enrolls, Alice who writes, and the channel she writes in (test keys).
///
/// The one reader of those files for the load runs that play the demo's parties.
struct DemoParties {
  let account: SecretKey
  let sender: SecretKey
  let channel: String

  init(demo: URL) throws {
    let keys = try JSONReader().read(Array(try Data(contentsOf: demo.appendingPathComponent("keys.json"))))
      .objectValue
    let manifest = try JSONReader().read(
      Array(try Data(contentsOf: demo.appendingPathComponent("manifest.json")))
    ).objectValue
    guard let accountHex = keys?["account"]?.objectValue?["secret_key"]?.stringValue,
      let senderHex = keys?["alice"]?.objectValue?["secret_key"]?.stringValue,
      let channel = manifest?["channel_id"]?.stringValue
    else {
      throw PipelineRunError(
        "Fixtures/demo lacks keys.json's account or alice, or manifest.json's channel_id")
    }
    account = try SecretKey(hex: accountHex)
    sender = try SecretKey(hex: senderHex)
    self.channel = channel
  }
}

/// A fresh SQLite file name in the temporary folder, removed with its WAL and shared-memory files.
struct TemporarySQLiteFile {
  let path: String

  init(prefix: String) {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).sqlite")
      .path
  }

  /// Removes the file, its `-wal` and its `-shm`.
  func remove() {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
  }
}
