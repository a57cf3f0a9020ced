import Foundation
import NostrPushTestSupport

/// Finds and reads the shared conformance vectors (`../shared/vectors` next to the repository).
enum VectorFiles {
  /// The vectors folder: `../shared/vectors` from the folder holding Package.swift, else the
  /// fixed path of the shared copy on the development machine.
  static var directory: URL { PackageRoot.sharedVectors }

  /// Decodes the JSON file `name` from the vectors folder.
  static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
  }
}
