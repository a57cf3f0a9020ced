/// A profile picture's bytes, validated by magic number and bounded in size.
///
/// Stored per (account, relay, sender) for the sender's current picture URL only: a new URL makes
/// it unusable at once.
package struct Avatar: Sendable, Hashable {
  /// The largest image kept, in bytes (512 KiB).
  package static let maxBytes = 512 * 1024

  /// The URL it was downloaded from.
  package var url: String
  /// The image format found in the bytes.
  package var format: ImageFormat
  /// The image bytes.
  package var bytes: [UInt8]
  /// The response's `ETag`, for a conditional refresh.
  package var etag: String?
  /// The response's `Last-Modified`, for a conditional refresh.
  package var lastModified: String?

  /// The MIME type of `format`.
  package var contentType: String { format.contentType }

  /// Creates an avatar record.
  package init(url: String, format: ImageFormat, bytes: [UInt8], etag: String?, lastModified: String?) {
    self.url = url
    self.format = format
    self.bytes = bytes
    self.etag = etag
    self.lastModified = lastModified
  }
}
