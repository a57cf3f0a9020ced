import Foundation
import PushGateway
import Testing

@testable import nostr_push

/// The demo's check of a wake's provider token: a token of the run's key verifies; one checked
/// with another key, or with its claims changed, does not.
@Suite struct DemoProviderTokenCheckTests {
  static func token(_ key: APNsSigningKey) async throws -> String {
    let tokens = APNsProviderTokens(
      key: key, keyID: try APNsIdentifier(DemoGateway.keyID, field: "key_id"),
      teamID: try APNsIdentifier(DemoGateway.teamID, field: "team_id"), clock: .fixed(1_800_000_000))
    return try await tokens.token().authorization
  }

  @Test func verifiesTheRunsKeyAndRefusesAnotherKeyOrChangedClaims() async throws {
    let key = try APNsSigningKey(pem: try APNsSigningKey.generatePEM())
    let other = try APNsSigningKey(pem: try APNsSigningKey.generatePEM())
    let authorization = try await Self.token(key)
    let verified = try DemoProviderTokenCheck.verify(
      authorization: authorization, publicKey: try key.publicKey()
    )
    .get()
    #expect(verified.keyID == DemoGateway.keyID)
    #expect(verified.teamID == DemoGateway.teamID)
    #expect(verified.issuedAt == 1_800_000_000)
    let withOtherKey = DemoProviderTokenCheck.verify(
      authorization: authorization, publicKey: try other.publicKey())
    #expect((try? withOtherKey.get()) == nil)
    // The same signature over other claims (iat moved by one second).
    let parts = authorization.dropFirst("bearer ".count).split(separator: ".")
    let claims = Data(#"{"iss":"DEMOTEAM01","iat":1800000001}"#.utf8).base64EncodedString()
      .replacingOccurrences(of: "=", with: "")
    let changed = "bearer \(parts[0]).\(claims).\(parts[2])"
    #expect(
      (try? DemoProviderTokenCheck.verify(authorization: changed, publicKey: try key.publicKey()).get())
        == nil)
    #expect(
      (try? DemoProviderTokenCheck.verify(authorization: nil, publicKey: try key.publicKey()).get()) == nil)
  }
}
