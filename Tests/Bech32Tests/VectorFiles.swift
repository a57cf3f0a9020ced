import Foundation
import NostrPushTestSupport

/// Finds and reads the conformance vectors the repository keeps (`Fixtures/vectors`).
enum VectorFiles {
  /// The vectors folder, `Fixtures/vectors` under the package root.
  static var directory: URL { PackageRoot.vectors }

  /// Decodes the JSON file `name` from the vectors folder.
  static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
  }
}
