#if os(Linux)
import AppAttest
import Foundation
import NostrEvent
import NostrHTTP
import NostrPushTestSupport
import NostrPushTesting
import PushRegistration
import Testing

/// `nostr-push gateway --config FILE` as a process, its app with an `app_attest` block whose
/// `root` is a synthetic authority's: registration without attestation is 401
/// `attestation_required`; a registrar with a device under that root registers and delegates; a
/// device under another root is 401 `invalid_attestation`.
@Suite(.timeLimit(.minutes(2))) struct ProductionGatewayAppAttestTests {
  static let appID = "TEAM123456.org.nostrpushkit.demo"

  @Test func theConfiguredGatewayEnforcesAppAttest() async throws {
    let now = Int64(Date().timeIntervalSince1970)
    let authority = try SyntheticAppAttestAuthority(notBefore: now - 86_400)
    let port = try await ProductionGatewayCommandTests.freePort()
    let files = try await ProductionGatewayCommandTests.Files(
      port: port, admin: try await ProductionGatewayCommandTests.freePort(),
      app: #","app_attest":{"app_id":"\#(Self.appID)","environment":"development","root":"root.pem"}"#,
      files: ["root.pem": authority.rootPEM])
    guard let (process, _) = try await NostrPushBinary.startServer(["gateway", "--config", files.config])
    else {
      Issue.record("nostr-push was not built")
      return
    }
    defer { process.send(SIGKILL) }
    let baseURL = "http://127.0.0.1:\(port)"
    let deadline = ContinuousClock.now + .seconds(20)
    let profile = ProductionGatewayCommandTests.profile
    let token = String(repeating: "c3", count: 32)
    func registrar(_ provider: (any AppAttestProvider)?) throws -> GatewayRegistrar {
      try GatewayRegistrar(baseURL: baseURL, key: SecretKey.generate(), appAttest: provider)
    }
    func device(_ authority: SyntheticAppAttestAuthority) throws -> SyntheticAppAttestProvider {
      SyntheticAppAttestProvider(
        authority: authority, appID: try AppAttestAppID(Self.appID), environment: .development)
    }

    #expect(
      try await registrar(nil).register(
        appProfile: profile, deviceToken: token, expiresAt: now + 86_400, deadline: deadline)
        == .attestationRequired)
    let stranger = try SyntheticAppAttestAuthority(notBefore: now - 86_400)
    #expect(
      try await registrar(try device(stranger)).register(
        appProfile: profile, deviceToken: token, expiresAt: now + 86_400, deadline: deadline)
        == .invalidAttestation)

    let attested = try registrar(try device(authority))
    let registered = try await attested.register(
      appProfile: profile, deviceToken: token, expiresAt: now + 86_400, deadline: deadline)
    guard case .created(let installation) = registered else {
      Issue.record("register: \(registered)")
      return
    }
    let delegated = try await attested.delegate(
      installationHandle: installation.handle, relayPubkey: SecretKey.generate().publicKeyHex, generation: 1,
      expiresAt: now + 3600, deadline: deadline)
    guard case .created = delegated else {
      Issue.record("delegate: \(delegated)")
      return
    }
    process.send(SIGTERM)
    let exit = await process.exited()
    #expect(exit.status == 0)
    // The refusal's step is in the operator's log, never in the answer.
    #expect(exit.stderrText.contains("untrusted_certificate_chain"), "\(exit.stderrText)")
  }
}
#endif
