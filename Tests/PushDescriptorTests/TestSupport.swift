import Foundation
import NostrJSON
import NostrPushTestSupport
import PushDescriptor

/// Paths and sample documents shared by the PushDescriptor suites.
enum TestSupport {
  /// The folder holding Package.swift.
  static var packageRoot: URL { PackageRoot.url }

  /// The conformance vectors the repository keeps (`Fixtures/vectors`).
  static var vectorsFolder: URL { PackageRoot.vectors }

  /// The NIP-11 vector folder.
  static let nip11Folder = vectorsFolder.appendingPathComponent("nip11")

  /// Every file name in the NIP-11 vector folder, sorted, without `index.json`.
  static let nip11FileNames: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: nip11Folder.path)) ?? []
    return names.filter { $0 != "index.json" }.sorted()
  }()

  /// The bytes of a file under the package root.
  static func fixtureBytes(_ relativePath: String) throws -> [UInt8] {
    Array(try Data(contentsOf: packageRoot.appendingPathComponent(relativePath)))
  }

  /// A valid `push` object exercising every member, as JSON text.
  static let pushText = """
    {"origin":"wss://push.example","keys":[{"id":"k1","pubkey":"\(hexA)","retiring":true},\
    {"id":"k2","pubkey":"\(hexB)","current":true}],"app_profiles":[{"id":"com.example.chat","transport":"apns"},\
    {"id":"com.example.droid","transport":"fcm"}],"push_kinds":[9,40002,45001,45003,1111],\
    "urgent_kinds":[45003],"h_grammar":"uuid-v4-lowercase","class_support":{"apns":["silent","default","urgent"],\
    "fcm":["high"]},"limitation":{"max_lease_ttl":604800,"max_leases_per_pubkey":8,\
    "max_subscriptions_per_lease":4,"max_kinds":16,"max_authors":256,"max_h":64,"max_tag_values":64,\
    "max_ignore":128,"max_content_len":8192,"max_plaintext_len":4096,"max_endpoint_len":512,\
    "max_string_len":64}}
    """

  /// 64 lowercase hex digits.
  static let hexA = String(repeating: "ab", count: 32)
  /// Another 64 lowercase hex digits.
  static let hexB = String(repeating: "0f", count: 32)

  /// The valid `push` value.
  static var push: JSONValue { try! JSONReader().read(pushText) }

  /// A valid document with known NIP-11 members and future top-level metadata around `push`.
  static var document: JSONObject {
    JSONObject([
      "name": .string("push.example"),
      "read_state_snapshot": .object(JSONObject(["enabled": .bool(true)])),
      "supported_nips": .array([.integer(1), .integer(11)]),
      "supported_extensions": .array([.string("nip-pl")]),
      "artifacts": .array([.string("a.tar.gz")]),
      "software_commit_count": .null,
      "push": push,
      "build_time": .integer(1_764_633_600),
    ])
  }

  /// A valid `buzz-push-v1` `push` object: `pushText` without `app_profiles` and `urgent_kinds`.
  static let pushV1Text = """
    {"origin":"wss://push.example","keys":[{"id":"k1","pubkey":"\(hexA)","retiring":true},\
    {"id":"k2","pubkey":"\(hexB)","current":true}],"push_kinds":[9,40002,45001,45003,1111],\
    "h_grammar":"uuid-v4-lowercase","class_support":{"apns":["silent","default","urgent"],\
    "fcm":["high"]},"limitation":{"max_lease_ttl":604800,"max_leases_per_pubkey":8,\
    "max_subscriptions_per_lease":4,"max_kinds":16,"max_authors":256,"max_h":64,"max_tag_values":64,\
    "max_ignore":128,"max_content_len":8192,"max_plaintext_len":4096,"max_endpoint_len":512,\
    "max_string_len":64}}
    """

  /// The valid `buzz-push-v1` `push` value.
  static var pushV1: JSONValue { try! JSONReader().read(pushV1Text) }

  /// `document` served as `buzz-push-v1`: the same future metadata, `supported_extensions`
  /// `["buzz-push-v1"]` and the v1 `push` object.
  static var documentV1: JSONObject {
    var object = document
    object["supported_extensions"] = .array([.string("buzz-push-v1")])
    object["push"] = pushV1
    return object
  }

  /// The descriptor `pushV1` validates to.
  static var descriptorV1: PushDescriptor {
    try! PushDescriptor(strictPush: pushV1, pushProtocol: .buzzPushV1)
  }

  /// The future top-level members in `document`, in order.
  static let futureKeys = ["read_state_snapshot", "artifacts", "software_commit_count", "build_time"]

  /// The descriptor `push` validates to.
  static var descriptor: PushDescriptor { try! PushDescriptor(strictPush: push) }

  /// The compact bytes of `value`.
  static func bytes(_ value: JSONValue) -> [UInt8] { JSONWriter.bytes(value) }

  /// The compact bytes of an object.
  static func bytes(_ object: JSONObject) -> [UInt8] { JSONWriter.bytes(.object(object)) }
}

/// A path into a JSON value: object member names and array indices (`push.keys[1].current`).
enum JSONPath {
  enum Component {
    case key(String)
    case index(Int)
  }

  static func components(_ path: String) -> [Component] {
    var result: [Component] = []
    for part in path.split(separator: ".") {
      var text = Substring(part)
      if let bracket = text.firstIndex(of: "[") {
        let name = text[..<bracket]
        if !name.isEmpty { result.append(.key(String(name))) }
        text = text[bracket...]
        while text.hasPrefix("["), let close = text.firstIndex(of: "]") {
          result.append(.index(Int(text[text.index(after: text.startIndex)..<close])!))
          text = text[text.index(after: close)...]
        }
      } else {
        result.append(.key(String(text)))
      }
    }
    return result
  }

  /// `value` with the element at `path` replaced (or removed when `newValue` is nil).
  static func updating(_ value: JSONValue, at path: String, to newValue: JSONValue?) -> JSONValue {
    update(value, components(path)[...], newValue)
  }

  private static func update(
    _ value: JSONValue, _ path: ArraySlice<Component>, _ newValue: JSONValue?
  ) -> JSONValue {
    guard let first = path.first else { return newValue ?? .null }
    let rest = path.dropFirst()
    switch (first, value) {
    case (.key(let key), .object(var object)):
      if rest.isEmpty {
        object[key] = newValue
      } else {
        object[key] = update(object[key] ?? .null, rest, newValue)
      }
      return .object(object)
    case (.index(let index), .array(var elements)):
      if rest.isEmpty {
        if let newValue { elements[index] = newValue } else { elements.remove(at: index) }
      } else {
        elements[index] = update(elements[index], rest, newValue)
      }
      return .array(elements)
    default:
      fatalError("path does not match the document")
    }
  }
}
