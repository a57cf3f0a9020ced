import Foundation
import NostrPushTestSupport
import NostrPushTesting
import PushRelay
import Testing

/// The worked examples of `Docs/Protocol/Delivery.md`: the delivery body the relay's gateway
/// client writes, and the APNs body the gateway fixture records.
@Suite struct ProtocolDeliveryDocTests {
  /// The JSON line after `<!-- checked: name -->` in the document.
  static func example(_ name: String) throws -> String {
    let text = try String(
      contentsOf: PackageRoot.url.appendingPathComponent("Docs/Protocol/Delivery.md"), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    let marker = try #require(lines.firstIndex(of: "<!-- checked: \(name) -->"), "no example \(name)")
    try #require(lines[marker + 1] == "```json")
    return lines[marker + 2]
  }

  @Test func theDeliveryBodyIsTheDocuments() throws {
    let body = GatewayClient.body(
      endpointGrant: "grant-7f3a", requestID: "0f4c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13", expiresAt: 1_767_229_200
    )
    #expect(String(decoding: body, as: UTF8.self) == (try Self.example("the delivery body")))
  }

  @Test func theAPNsBodyIsTheDocuments() throws {
    #expect(GatewayFixture.apnsBody == (try Self.example("the APNs body")))
  }
}
