import Foundation
import NostrPushTestSupport
import Testing

/// The manifest as SwiftPM reads it on this host (`swift package dump-package`): on Linux it
/// declares no remote package (secp256k1 is the system library), and its products are the
/// libraries (the Apple-only `NotificationService` shell among them, empty here),
/// `NostrPushTesting` and `nostr-push`, nothing else.
@Suite struct PackageManifestTests {
  /// The manifest's JSON, read with a scratch folder of its own: `swift test` holds the lock on
  /// `.build`, and a `swift package` call without its own scratch path would wait for it forever.
  static func dumpPackage() async throws -> [String: Any] {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "manifest-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let exit = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "swift", "package", "--package-path", PackageRoot.url.path, "--scratch-path", scratch.path,
        "dump-package",
      ])
    try #require(exit.status == 0, "dump-package failed: \(exit.stderrText)")
    let object = try JSONSerialization.jsonObject(with: Data(exit.stdout))
    return try #require(object as? [String: Any])
  }

  @Test func declaresNoRemotePackageAndOnlyTheseProducts() async throws {
    let manifest = try await Self.dumpPackage()
    #if os(Linux)
    let dependencies = try #require(manifest["dependencies"] as? [Any])
    #expect(dependencies.isEmpty)
    let targets = try #require(manifest["targets"] as? [[String: Any]])
    #expect(targets.contains { $0["name"] as? String == "CSecp256k1" && $0["type"] as? String == "system" })
    #endif
    let products = try #require(manifest["products"] as? [[String: Any]])
    let names = Set(products.compactMap { $0["name"] as? String })
    #expect(
      names == [
        "NostrPushCore", "NostrJSON", "Bech32", "NostrEvent", "NostrHTTP", "NIP44", "NostrWebSocket",
        "PushDescriptor", "PushLease", "EnrichmentCache", "NotificationResolver", "PushRelay",
        "PushRelayPostgres", "NostrPushTesting", "GiftWrap", "NotificationService", "nostr-push",
        "NostrHTTPServer", "NostrCurlHTTP", "PushGateway", "PushGatewayPostgres",
        "AppAttest",
      ])
    #if os(Linux)
    // libpq is a system library too (apt libpq-dev), for PushRelayPostgres only.
    #expect(targets.contains { $0["name"] as? String == "CLibPQ" && $0["type"] as? String == "system" })
    #endif
  }

  @Test func keepsExecutablesAndHelpersOutOfSources() async throws {
    let manifest = try await Self.dumpPackage()
    let targets = try #require(manifest["targets"] as? [[String: Any]])
    for target in targets where target["type"] as? String == "executable" {
      let path = try #require(target["path"] as? String, "\(target["name"] ?? "?") sets no path")
      #expect(!path.hasPrefix("Sources"), "\(target["name"] ?? "?") lives in \(path)")
    }
  }
}
