import Foundation
import NostrJSON
import NostrPushTestSupport

/// Finds and reads the conformance vectors the repository keeps (`Fixtures/vectors`).
enum VectorFiles {
  /// The vectors folder, `Fixtures/vectors` under the package root.
  static var directory: URL { PackageRoot.vectors }

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
