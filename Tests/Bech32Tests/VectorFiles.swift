import Foundation

/// Finds and reads the shared conformance vectors (`../shared/vectors` next to the repository).
enum VectorFiles {
  /// The vectors folder: `../shared/vectors` from the folder holding Package.swift, else the
  /// fixed path of the shared copy on the development machine.
  static let directory: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while folder.path != "/" {
      if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        let candidate = folder.deletingLastPathComponent().appendingPathComponent("shared/vectors")
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        break
      }
      folder.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: "/work/shared/vectors")
  }()

  /// Decodes the JSON file `name` from the vectors folder.
  static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
  }
}
