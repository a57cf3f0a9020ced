import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import Testing

/// The wraps another implementation made (`Fixtures/giftwrap/wraps.json`, rust-nostr through
/// `make-wraps.py`) and NIP-59's worked example (`Fixtures/vectors/nip59/nip59-example.json`).
enum GiftWrapFixtures {
  /// One case of `wraps.json`: a wrap and what its rumor holds.
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let wrap: Event
    let rumorID: String
    let author: String
    let createdAt: Int64
    let kind: Int
    let content: String
    let tags: [[String]]

    var testDescription: String { "wraps.json: \(name)" }
  }

  static func document(_ path: String) throws -> JSONObject {
    let bytes = try Data(contentsOf: PackageRoot.appending(path))
    guard let object = try JSONReader().read([UInt8](bytes)).objectValue else {
      throw FixtureProblem(path)
    }
    return object
  }

  static func key(_ name: String) throws -> SecretKey {
    guard let hex = try document(wrapsPath)["test_keys"]?.objectValue?[name]?.stringValue else {
      throw FixtureProblem(name)
    }
    return try SecretKey(hex: hex)
  }

  static let wrapsPath = "Fixtures/giftwrap/wraps.json"
  static let examplePath = "Fixtures/vectors/nip59/nip59-example.json"

  static func cases() throws -> [Case] {
    try (document(wrapsPath)["cases"]?.arrayValue ?? []).map { value in
      guard let object = value.objectValue, let name = object["name"]?.stringValue,
        let wrap = object["wrap"], let expected = object["expected"]?.objectValue,
        let rumorID = expected["rumor_id"]?.stringValue, let author = expected["author"]?.stringValue,
        let createdAt = expected["created_at"]?.integerValue, let kind = expected["kind"]?.integerValue,
        let content = expected["content"]?.stringValue, let tags = expected["tags"]?.arrayValue
      else { throw FixtureProblem("a case of wraps.json") }
      return Case(
        name: name, wrap: try Event(jsonValue: wrap), rumorID: rumorID, author: author, createdAt: createdAt,
        kind: Int(kind), content: content,
        tags: tags.map { ($0.arrayValue ?? []).compactMap(\.stringValue) })
    }
  }

  static func namedCase(_ name: String) throws -> Case {
    guard let found = try cases().first(where: { $0.name == name }) else { throw FixtureProblem(name) }
    return found
  }

  /// The cases the recipient opens (not the one wrapped for the other recipient or an outsider).
  static func recipientCases() -> [Case] {
    ((try? cases()) ?? []).filter { $0.name != "for_outsider" && $0.name != "group_for_other" }
  }

  struct FixtureProblem: Error, CustomStringConvertible {
    let description: String
    init(_ what: String) { description = "fixture: cannot read \(what)" }
  }
}
