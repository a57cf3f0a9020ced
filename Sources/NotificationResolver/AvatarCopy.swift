import EnrichmentCache
import Foundation

/// Copies a stored avatar into a file of one notification's own.
///
/// iOS moves an attachment's file away once it shows it, so two notifications never share one:
/// every plan gets a fresh copy (`<avatar directory>/notifications/<UUID>.<ext>`), readable
/// whatever happens to the others. PNG, JPEG and GIF are copied as they are; WebP is converted to
/// a PNG thumbnail where ImageIO exists (``WebPConversion``), else skipped as
/// `unsupported_format`.
///
/// Copies a notification never took (the CLI, a plan not handed to iOS) are removed by a later
/// copy once they are older than ``lifetime``, so the folder stays bounded.
enum AvatarCopy {
  /// What copying gave: this notification's attachment, or why there is none.
  enum Result: Equatable {
    case copied(NotificationPlan.Attachment)
    case skipped(NotificationPlan.AvatarSkip)
  }

  /// The folder under the avatar directory that holds the notifications' own copies.
  static let folderName = "notifications"
  /// How long an unclaimed copy is kept: far longer than an extension lives (30 s).
  static let lifetime: TimeInterval = 600
  /// The most stale copies removed by one copy, so that pruning never stalls a wake.
  static let maxPrunedPerCopy = 64

  /// A fresh copy of the avatar stored at `source`, in `directory`'s notification folder; nil when
  /// the stored file cannot be read or the copy cannot be written (no attachment, no reason to
  /// give).
  static func copy(from source: String, into directory: String) -> Result? {
    guard let handle = FileHandle(forReadingAtPath: source) else { return nil }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: Avatar.maxBytes + 1) else { return nil }
    guard data.count <= Avatar.maxBytes else { return .skipped(.tooLarge) }
    let bytes: Data
    let format: NotificationPlan.Attachment.Format
    switch ImageFormat(sniffing: data) {
    case .png: (bytes, format) = (data, .png)
    case .jpeg: (bytes, format) = (data, .jpeg)
    case .gif: (bytes, format) = (data, .gif)
    case .webp:
      guard let converted = WebPConversion.pngThumbnail(data) else { return .skipped(.unsupportedFormat) }
      (bytes, format) = (converted, .png)
    case nil: return .skipped(.unsupportedFormat)
    }
    let folder = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent(
      folderName, isDirectory: true)
    do {
      try FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      pruneStaleCopies(in: folder)
      let file = folder.appendingPathComponent(UUID().uuidString + "." + format.fileExtension)
      try bytes.write(to: file, options: .atomic)
      return .copied(NotificationPlan.Attachment(file: file.path, format: format))
    } catch {
      return nil
    }
  }

  /// Removes up to ``maxPrunedPerCopy`` copies older than ``lifetime``.
  private static func pruneStaleCopies(in folder: URL) {
    let manager = FileManager.default
    guard
      let names = try? manager.contentsOfDirectory(
        at: folder, includingPropertiesForKeys: [.contentModificationDateKey])
    else { return }
    let oldest = Date().addingTimeInterval(-lifetime)
    var removed = 0
    for file in names where removed < maxPrunedPerCopy {
      let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?
        .contentModificationDate
      if let modified, modified < oldest, (try? manager.removeItem(at: file)) != nil { removed += 1 }
    }
  }
}

extension NotificationPlan.Attachment.Format {
  /// The file name extension a copy in this format gets.
  var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}
