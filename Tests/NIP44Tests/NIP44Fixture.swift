import Foundation
import NostrJSON
import NostrPushTestSupport

/// The official NIP-44 vector file as copied into `Fixtures/vectors/nip44`, found from this file's path.
enum NIP44Fixture {
  /// The folder holding Package.swift.
  static var packageRoot: URL { PackageRoot.url }

  /// The bytes of `Fixtures/vectors/nip44/nip44.vectors.json`.
  static let bytes: [UInt8] = {
    let url = packageRoot.appendingPathComponent("Fixtures/vectors/nip44/nip44.vectors.json")
    guard let data = FileManager.default.contents(atPath: url.path) else {
      fatalError("missing \(url.path)")
    }
    return [UInt8](data)
  }()

  /// The `v2` object of the file.
  static let v2: JSONObject = {
    do {
      guard let v2 = try JSONReader().read(bytes).objectValue?["v2"]?.objectValue else {
        fatalError("the vector file has no v2 object")
      }
      return v2
    } catch {
      fatalError("the vector file is not JSON: \(error)")
    }
  }()

  /// The array `group.name` of `v2` (e.g. `valid.encrypt_decrypt`), each element an object.
  static func cases(_ group: String, _ name: String) -> [JSONObject] {
    guard let array = v2[group]?.objectValue?[name]?.arrayValue else {
      fatalError("no v2.\(group).\(name) array")
    }
    return array.map { element in
      guard let object = element.objectValue else { fatalError("v2.\(group).\(name) holds a non-object") }
      return object
    }
  }
}

extension JSONObject {
  /// The string member `key`; a test failure (crash) when the vector file lacks it.
  func string(_ key: String) -> String {
    guard let value = self[key]?.stringValue else { fatalError("vector without string \(key)") }
    return value
  }
}
