/// The image formats an avatar may have, recognised by their magic bytes.
///
/// The server's `Content-Type` is never trusted: SVG and everything else are refused.
package enum ImageFormat: String, Sendable, Hashable, CaseIterable {
  /// PNG (`89 50 4E 47 0D 0A 1A 0A`).
  case png
  /// JPEG (`FF D8 FF`).
  case jpeg
  /// GIF (`GIF87a` or `GIF89a`).
  case gif
  /// WebP (`RIFF`, four size bytes, `WEBP`).
  case webp

  /// The MIME type.
  package var contentType: String { "image/\(rawValue)" }

  /// The format the bytes start with, or nil when they are none of the four.
  package init?(sniffing bytes: some Collection<UInt8>) {
    let head = Array(bytes.prefix(12))
    if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      self = .png
    } else if head.starts(with: [0xFF, 0xD8, 0xFF]) {
      self = .jpeg
    } else if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) {
      self = .gif
    } else if head.count == 12, head.starts(with: Array("RIFF".utf8)), head[8...].elementsEqual("WEBP".utf8) {
      self = .webp
    } else {
      return nil
    }
  }

  /// The format from a stored MIME type.
  init?(contentType: String) {
    guard contentType.hasPrefix("image/") else { return nil }
    self.init(rawValue: String(contentType.dropFirst(6)))
  }
}
