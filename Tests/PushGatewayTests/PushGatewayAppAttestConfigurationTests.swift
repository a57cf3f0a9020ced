#if os(Linux)
import AppAttest
import Foundation
import NostrPushTesting
import PushGateway
import Testing

/// An app's `app_attest` block in the gateway's configuration: Apple's pinned root by default, a
/// `root` file for tests, and each refusal naming its member.
@Suite struct PushGatewayAppAttestConfigurationTests {
  /// The valid configuration with `block` as `apps[0].app_attest`.
  func configuration(_ files: GatewayConfigurationFiles, _ block: Any) throws -> String {
    var object = files.valid
    var app = files.app()
    app["app_attest"] = block
    object["apps"] = [app]
    return try files.configFile(object)
  }

  func refusal(_ files: GatewayConfigurationFiles, _ block: Any) throws -> PushGatewayConfigurationError? {
    let path = try configuration(files, block)
    do {
      _ = try PushGatewayConfiguration(contentsOf: path)
      return nil
    } catch { return error }
  }

  @Test func withoutRootTheVerifierTrustsApplesEmbeddedRoot() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    let parsed = try PushGatewayConfiguration(
      contentsOf: try configuration(
        files, ["app_id": "TEAM123456.org.example.chat", "environment": "production"]))
    let block = try #require(parsed.apps.first?.appAttest)
    #expect(block.appID.description == "TEAM123456.org.example.chat")
    #expect(block.environment == .production)
    #expect(block.rootFile == nil)
    let verifier = try #require(block.verifier as? AppAttestVerifier)
    #expect(verifier.trustAnchor.der == (try AppAttestTrustAnchor.apple()).der)
    #expect(verifier.environment == .production)
    #expect(parsed.appAttestVerifiers.keys.sorted() == ["chat"])
    // Without the block the app needs no attestation.
    #expect(
      try PushGatewayConfiguration(contentsOf: try files.configFile(files.valid)).appAttestVerifiers.isEmpty)
  }

  @Test func aRootFileReplacesApplesRoot() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    let authority = try SyntheticAppAttestAuthority(notBefore: Int64(Date().timeIntervalSince1970))
    try files.write("test-root.pem", String(decoding: authority.rootPEM, as: UTF8.self), mode: 0o644)
    let parsed = try PushGatewayConfiguration(
      contentsOf: try configuration(
        files,
        ["app_id": "TEAM123456.org.example.chat", "environment": "development", "root": "test-root.pem"]))
    let block = try #require(parsed.apps.first?.appAttest)
    #expect(block.rootFile == files.path("test-root.pem"))
    let verifier = try #require(block.verifier as? AppAttestVerifier)
    #expect(verifier.trustAnchor.der == authority.rootDER)
    #expect(verifier.environment == .development)
  }

  @Test func eachRefusalNamesItsMember() async throws {
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    try files.write("not-a-certificate.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n", mode: 0o644)
    let appID = "TEAM123456.org.example.chat"
    let cases: [(Any, ErrorCode<PushGatewayConfigurationErrorDomain>, String)] = [
      ("yes", .invalidField, "apps[0].app_attest"),
      (["environment": "production"], .invalidField, "apps[0].app_attest.app_id"),
      (["app_id": "no-dot", "environment": "production"], .invalidField, "apps[0].app_attest.app_id"),
      (["app_id": appID], .invalidField, "apps[0].app_attest.environment"),
      (["app_id": appID, "environment": "sandbox"], .invalidField, "apps[0].app_attest.environment"),
      (
        ["app_id": appID, "environment": "production", "roots": "x"], .invalidField,
        "apps[0].app_attest.roots"
      ),
      (
        ["app_id": appID, "environment": "production", "root": "absent.pem"], .unreadableFile,
        "apps[0].app_attest.root"
      ),
      (
        ["app_id": appID, "environment": "production", "root": "not-a-certificate.pem"], .invalidField,
        "apps[0].app_attest.root"
      ),
    ]
    for (block, code, field) in cases {
      let error = try refusal(files, block)
      #expect(error?.code == code && error?.field == field, "\(block): \(String(describing: error))")
    }
  }
}
#endif
