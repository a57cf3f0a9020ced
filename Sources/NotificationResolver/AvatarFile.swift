import EnrichmentCache
import Foundation
import NostrEvent

/// Writes an avatar image to a file a notification can attach.
///
/// The file is named by the SHA-256 of its bytes and written to a temporary name first, then
/// renamed into place, so two notifications writing the same avatar at once produce one file and
/// neither ever sees it half-written.
enum AvatarFile {
  /// The path of the attachment holding `avatar` in `directory`, or nil when it cannot be written.
  static func write(_ avatar: AvatarSnapshot, in directory: String) -> String? {
    let name =
      Hex.encode(NostrSHA256.hash(avatar.bytes).prefix(16)) + "."
      + (avatar.format == .jpeg ? "jpg" : avatar.format.rawValue)
    let folder = URL(fileURLWithPath: directory, isDirectory: true)
    let destination = folder.appendingPathComponent(name)
    if FileManager.default.fileExists(atPath: destination.path) { return destination.path }
    do {
      try FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      let temporary = folder.appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
      try Data(avatar.bytes).write(to: temporary)
      if rename(temporary.path, destination.path) != 0 {
        try? FileManager.default.removeItem(at: temporary)
        return nil
      }
      return destination.path
    } catch {
      return nil
    }
  }
}
