/// A profile picture's bytes, validated by magic number and bounded in size.
///
/// Stored per (account, relay, sender) for the sender's current picture URL only: a new URL makes
/// it unusable at once.
public struct Avatar: Sendable, Hashable {
  /// The largest image kept, in bytes (512 KiB).
  public static let maxBytes = 512 * 1024

  /// The URL it was downloaded from.
  public var url: String
  /// The image format found in the bytes.
  public var format: ImageFormat
  /// The image bytes.
  public var bytes: [UInt8]
  /// The response's `ETag`, for a conditional refresh.
  public var etag: String?
  /// The response's `Last-Modified`, for a conditional refresh.
  public var lastModified: String?

  /// The MIME type of `format`.
  public var contentType: String { format.contentType }

  /// Creates an avatar record.
  public init(url: String, format: ImageFormat, bytes: [UInt8], etag: String?, lastModified: String?) {
    self.url = url
    self.format = format
    self.bytes = bytes
    self.etag = etag
    self.lastModified = lastModified
  }
}
