import Foundation
import NostrJSON
import NostrPushTestSupport
import PushDescriptor
import Testing

/// The worked examples of `Docs/Protocol/Descriptor.md`: the bytes the code writes for the
/// descriptor the text describes, and the strict reading of those bytes.
@Suite struct ProtocolDescriptorDocTests {
  /// The JSON line after `<!-- checked: name -->` in the document.
  static func example(_ name: String) throws -> String {
    let text = try String(
      contentsOf: PackageRoot.url.appendingPathComponent("Docs/Protocol/Descriptor.md"), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    let marker = try #require(lines.firstIndex(of: "<!-- checked: \(name) -->"), "no example \(name)")
    try #require(lines[marker + 1] == "```json")
    return lines[marker + 2]
  }

  static let relayKey = "11709e7cba279867eb5e29c188f3e74c003adea8f909b6a5520ae739251d44f5"

  static func descriptor(_ pushProtocol: PushProtocol) -> PushDescriptor {
    PushDescriptor(
      pushProtocol: pushProtocol, origin: "wss://relay.example",
      keys: [PushKey(id: "2026-01", pubkey: relayKey, current: true)],
      appProfiles: pushProtocol == .nipPL ? [PushAppProfile(id: "com.example.chat", transport: "apns")] : [],
      pushKinds: PushDescriptor.requiredPushKinds, urgentKinds: pushProtocol == .nipPL ? [] : nil,
      classSupport: PushClassSupport(apns: [.silent, .default, .timeSensitive]),
      limitation: PushLimitation(
        maxLeaseTTL: 2_592_000, maxLeasesPerPubkey: 8, maxSubscriptionsPerLease: 4, maxKinds: 8,
        maxAuthors: 64,
        maxH: 32, maxTagValues: 64, maxIgnore: 256, maxContentLen: 65_536, maxPlaintextLen: 4096,
        maxEndpointLen: 512, maxStringLen: 256))
  }

  @Test func thePushObjectsAreTheDocuments() throws {
    #expect(
      String(decoding: Self.descriptor(.nipPL).jsonBytes(), as: UTF8.self)
        == (try Self.example("the nip-pl push object")))
    #expect(
      String(decoding: Self.descriptor(.buzzPushV1).jsonBytes(), as: UTF8.self)
        == (try Self.example("the buzz-push-v1 push object")))
  }

  @Test func theDocumentIsTheDocumentsAndReadsBackStrictly() throws {
    let information = RelayInformation(
      lenient: JSONObject([
        "name": .string("relay.example"), "self": .string(Self.relayKey),
        "supported_nips": .array([.integer(1), .integer(11), .integer(29), .integer(98)]),
      ]))
    let document = RelayDocument(information: information, push: Self.descriptor(.nipPL))
    let documented = try Self.example("the NIP-11 document")
    #expect(String(decoding: document.jsonBytes(), as: UTF8.self) == documented)
    #expect(try RelayDocument(bytes: Array(documented.utf8)).push == Self.descriptor(.nipPL))
  }
}
