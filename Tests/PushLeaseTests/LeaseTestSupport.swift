import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import PushDescriptor
import Testing

@testable import PushLease

/// The demo relay's descriptor and test keys, and helpers that build lease events around a
/// given plaintext, shared by the PushLease suites.
///
/// `Fixtures/demo/nip11.json` lists the demo relay key as its one push key, and
/// `Fixtures/demo/keys.json` holds that key's secret (test keys, published with the repository),
/// so the validator can open what the helpers seal.
enum LeaseTestSupport {
  /// The folder holding Package.swift.
  static var packageRoot: URL { PackageRoot.url }

  /// The bytes of a file under the package root.
  static func fixtureBytes(_ relativePath: String) -> [UInt8] {
    Array((try? Data(contentsOf: packageRoot.appendingPathComponent(relativePath))) ?? Data())
  }

  /// A fixture document's `push` object.
  static func pushObject(_ relativePath: String) -> JSONValue {
    let document = try! JSONReader().read(fixtureBytes(relativePath))
    return document.objectValue!["push"]!
  }

  /// `Fixtures/demo/nip11.json`'s descriptor, optionally with some `push` members replaced (for
  /// a limit, a dotted `limitation.max_kinds` path) and parsed again strictly.
  static func demoDescriptor(_ changes: [String: JSONValue] = [:]) -> PushDescriptor {
    descriptor("Fixtures/demo/nip11.json", changes)
  }

  /// `Fixtures/demo-v1/nip11.json`'s `buzz-push-v1` descriptor (the demo relay without app
  /// profiles), optionally changed as `demoDescriptor` does.
  static func demoV1Descriptor(_ changes: [String: JSONValue] = [:]) -> PushDescriptor {
    descriptor("Fixtures/demo-v1/nip11.json", changes, pushProtocol: .buzzPushV1)
  }

  /// `Fixtures/nip11/push-descriptor.json`'s descriptor (a retiring and a current key, two app
  /// profiles), optionally changed as `demoDescriptor` does.
  static func exampleDescriptor(_ changes: [String: JSONValue] = [:]) -> PushDescriptor {
    descriptor("Fixtures/nip11/push-descriptor.json", changes)
  }

  private static func descriptor(
    _ path: String, _ changes: [String: JSONValue], pushProtocol: PushProtocol = .nipPL
  ) -> PushDescriptor {
    var push = pushObject(path).objectValue!
    for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
      let parts = key.split(separator: ".").map(String.init)
      if parts.count == 2 {
        var inner = push[parts[0]]!.objectValue!
        inner[parts[1]] = value
        push[parts[0]] = .object(inner)
      } else {
        push[key] = value
      }
    }
    return try! PushDescriptor(strictPush: .object(push), pushProtocol: pushProtocol)
  }

  /// A limitation change for `demoDescriptor`/`exampleDescriptor`.
  static func limit(_ name: String, _ value: Int) -> [String: JSONValue] {
    ["limitation.\(name)": .integer(Int64(value))]
  }

  /// The demo relay's push secret key (`keys.json` `relay`, a test key).
  static let pushKey = try! SecretKey(hex: "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
  /// The demo descriptor's key id for `pushKey`.
  static let keyID = "demo-2026-01"
  /// The demo account's secret key (`keys.json` `account`, a test key).
  static let account = try! SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
  /// The account's pubkey.
  static let me = account.publicKeyHex
  /// The demo relay's origin.
  static let origin = "ws://127.0.0.1:48111"
  /// The demo app profile.
  static let appProfile = PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
  /// The clock every test reads.
  static let now: Int64 = 1_767_225_600
  /// An installation id.
  static let installationID = InstallationID(rawValue: "00112233445566778899aabbccddeeff")!
  /// Two valid channel ids.
  static let channelA = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
  static let channelB = "9e8d7c6b-5a49-4382-b716-05f4e3d2c1b0"

  /// A validator for the demo descriptor (or `descriptor`) holding `pushKey`.
  static func validator(_ descriptor: PushDescriptor = demoDescriptor()) -> LeaseValidator {
    try! LeaseValidator(descriptor: descriptor, pushKeys: [keyID: pushKey])
  }

  /// `template` with `$ME`, `$ORIGIN`, `$PROFILE`, `$HEAD` (the members of an active lease before
  /// `subscriptions`) and `$SUB` (one valid mention subscription) filled in.
  static func fill(_ template: String) -> String {
    template
      .replacingOccurrences(
        of: "$HEAD",
        with: ##""v":1,"origin":"$ORIGIN","app_profile":"$PROFILE","transport":"apns","endpoint":"grant-1","##
          + ##""generation":1,"active":true"##
      )
      .replacingOccurrences(of: "$SUB", with: ##"{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default"}"##)
      .replacingOccurrences(of: "$ME", with: me)
      .replacingOccurrences(of: "$ORIGIN", with: origin)
      .replacingOccurrences(of: "$PROFILE", with: appProfile.id)
  }

  /// The members of a valid active plaintext in the spec's order, as raw JSON texts.
  static let activeMembers: [(String, String)] = [
    ("v", "1"), ("origin", ##""$ORIGIN""##), ("app_profile", ##""$PROFILE""##), ("transport", ##""apns""##),
    ("endpoint", ##""grant-1""##), ("generation", "1"), ("active", "true"), ("subscriptions", "[$SUB]"),
  ]

  /// A valid active plaintext template with some members' raw JSON replaced (`nil` removes one).
  static func active(_ replacements: [String: String?] = [:]) -> String {
    object(activeMembers, replacements)
  }

  /// A valid tombstone plaintext template with some members' raw JSON replaced.
  static func tombstone(_ replacements: [String: String?] = [:]) -> String {
    object([("v", "1"), ("origin", ##""$ORIGIN""##), ("generation", "1"), ("active", "false")], replacements)
  }

  private static func object(_ members: [(String, String)], _ replacements: [String: String?]) -> String {
    var parts: [String] = []
    for (key, value) in members {
      let text: String? = replacements.keys.contains(key) ? replacements[key]! : value
      if let text { parts.append("\"\(key)\":\(text)") }
    }
    return "{" + parts.joined(separator: ",") + "}"
  }

  /// A valid active plaintext with `subscriptions` (a raw JSON array template).
  static func withSubscriptions(_ subscriptions: String) -> String {
    active(["subscriptions": subscriptions])
  }

  /// A valid active plaintext whose one subscription has `filter` (a template) and `pushClass`.
  static func withFilter(_ filter: String, pushClass: String = "default") -> String {
    fill(##"{$HEAD,"subscriptions":[{"filter":"## + filter + ##","class":""## + pushClass + ##""}]}"##)
  }

  /// The public tags of a valid lease: `d`, an expiration a day ahead, the demo key's `exec`.
  static let validTags = [
    ["d", installationID.rawValue], ["expiration", String(now + 86_400)], ["exec", keyID],
  ]

  struct SealFailed: Error {}

  /// A signed lease event around `plaintext` (a template, see `fill`), sealed with the library's
  /// NIP-44 seam from `author` to the demo push key, unless `content` is given.
  static func lease(
    _ plaintext: String, tags: [[String]] = validTags, kind: Int = 30350, content: String? = nil,
    author: SecretKey = account, createdAt: Int64 = now
  ) throws -> Event {
    let sealed: String
    if let content {
      sealed = content
    } else {
      guard let payload = LeaseCipher.seal(fill(plaintext), from: author, to: pushKey.publicKeyHex) else {
        throw SealFailed()
      }
      sealed = payload
    }
    return try UnsignedEvent(
      pubkey: author.publicKeyHex, createdAt: createdAt, kind: kind, tags: tags, content: sealed
    ).signed(with: author)
  }

  /// The validator's rejection message for `event`, or nil when it accepts it.
  static func verdict(
    _ event: Event, validator: LeaseValidator = validator(), tenantOrigin: String = origin, now: Int64 = now
  ) -> String? {
    do {
      _ = try validator.open(event, tenantOrigin: tenantOrigin, now: now)
      return nil
    } catch {
      return error.message
    }
  }

  /// `count` distinct valid channel ids, sorted.
  static func channels(_ count: Int) -> [String] {
    (0..<count).map { String(format: "%08x-0000-4000-8000-000000000000", $0) }
  }
}
