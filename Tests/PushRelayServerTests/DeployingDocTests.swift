import Foundation
import NostrPushTestSupport
import PushRelayServer
import Testing

/// The configuration quoted in `Docs/DeployingThePushRelay.md` is one the service reads.
@Suite struct DeployingDocTests {
  /// The ```json blocks of the guide.
  static func jsonBlocks() throws -> [String] {
    let text = try String(
      contentsOf: PackageRoot.url.appendingPathComponent("Docs/DeployingThePushRelay.md"), encoding: .utf8)
    var blocks: [String] = []
    var current: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line == "```json" {
        current = []
      } else if current != nil, line == "```" {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  @Test func theQuotedConfigurationIsValid() throws {
    let blocks = try Self.jsonBlocks()
    #expect(blocks.count == 1)
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write("service.key", Keys.serviceHex)
    try folder.write("push-current.key", Keys.pushHex)
    for block in blocks {
      let configuration = try PushServiceConfiguration(json: Array(block.utf8), folder: folder.path)
      #expect(configuration.upstreams.count == 2)
      #expect(configuration.adminListen.port == 9447)
      _ = try PushService.document(configuration)
    }
  }
}
