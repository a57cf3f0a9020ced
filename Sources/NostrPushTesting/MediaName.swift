/// Rules for the names under `/media/`: one safe path component, and its content type.
enum MediaName {
  /// The longest media name accepted (255 bytes, a common file-name limit).
  static let maxBytes = 255

  /// Whether `name` is a single component of letters, digits, `.`, `_` and `-` that does not
  /// start with a dot (so never `..`, a hidden file or anything with a separator or escape).
  static func isSafe(_ name: String) -> Bool {
    guard !name.isEmpty, name.utf8.count <= maxBytes, !name.hasPrefix(".") else { return false }
    return name.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
        true
      default: false
      }
    }
  }

  /// The content type for `name`'s extension; `application/octet-stream` when unknown.
  static func contentType(of name: String) -> String {
    let dot = name.lastIndex(of: ".").map { name.index(after: $0) }
    let ext = dot.map { name[$0...].lowercased() } ?? ""
    switch ext {
    case "png": return "image/png"
    case "jpg", "jpeg": return "image/jpeg"
    case "gif": return "image/gif"
    case "webp": return "image/webp"
    case "svg": return "image/svg+xml"
    case "json": return "application/json"
    case "txt": return "text/plain; charset=utf-8"
    default: return "application/octet-stream"
    }
  }
}
