import Foundation
import NostrJSON

/// Finds and reads the shared conformance vectors (`../shared/vectors` beside the package).
enum VectorFiles {
  /// The vectors folder: `../shared/vectors` from the package root, else `/work/shared/vectors`.
  static let directory: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while folder.path != "/" {
      if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        let relative = folder.deletingLastPathComponent().appendingPathComponent("shared/vectors")
        if FileManager.default.fileExists(atPath: relative.path) { return relative }
        break
      }
      folder = folder.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: "/work/shared/vectors")
  }()

  /// The bytes of the vector file `name`.
  static func bytes(_ name: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
      fatalError("missing vector file \(name) in \(directory.path)")
    }
    return [UInt8](data)
  }

  /// The vector file `name` read with the strict reader.
  static func json(_ name: String) -> JSONValue {
    do {
      return try JSONReader().read(bytes(name))
    } catch {
      fatalError("vector file \(name) is not JSON: \(error)")
    }
  }
}
