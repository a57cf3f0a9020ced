import Foundation

#if canImport(ImageIO)
import ImageIO
#endif

/// Converts a WebP avatar into a PNG that a notification can attach, where ImageIO exists.
///
/// iOS does not attach WebP files; ImageIO decodes them, so on Apple platforms the resolver turns
/// one into a PNG thumbnail of at most ``maxPixelSize`` px. Elsewhere there is no decoder, and the
/// plan says `unsupported_format`. The ImageIO path is not compiled on the project's Linux
/// machines.
enum WebPConversion {
  /// The longest side of the converted thumbnail, in pixels.
  static let maxPixelSize = 256

  /// The PNG thumbnail of the WebP image in `data`; nil when it cannot be decoded, or without
  /// ImageIO.
  static func pngThumbnail(_ data: Data) -> Data? {
    #if canImport(ImageIO)
    guard let source = CGImageSourceCreateWithData(data as CFData, nil) else { return nil }
    let options: [CFString: Any] = [
      kCGImageSourceCreateThumbnailFromImageAlways: true,
      kCGImageSourceCreateThumbnailWithTransform: true,
      kCGImageSourceThumbnailMaxPixelSize: maxPixelSize,
    ]
    guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
      return nil
    }
    let output = NSMutableData()
    guard
      let destination = CGImageDestinationCreateWithData(
        output as CFMutableData, "public.png" as CFString, 1, nil)
    else { return nil }
    CGImageDestinationAddImage(destination, image, nil)
    guard CGImageDestinationFinalize(destination) else { return nil }
    return output as Data
    #else
    return nil
    #endif
  }
}
