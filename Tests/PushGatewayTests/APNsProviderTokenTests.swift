import Foundation
import PushGateway
import Testing

/// The key id and team id the tests use.
private let keyID = try! APNsIdentifier("ABC123DEFG", field: "key_id")
private let teamID = try! APNsIdentifier("DEF123GHIJ", field: "team_id")

/// base64url (unpadded) decoding, written here independently of the code under test.
private func base64URLDecode(_ text: Substring) -> [UInt8]? {
  var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
  while standard.count % 4 != 0 { standard += "=" }
  return Data(base64Encoded: standard).map(Array.init)
}

@Suite struct APNsProviderTokenTests {
  @Test func makesAJWTWithExactlyAlgKidIssIatThatOpenSSLVerifies() async throws {
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    let tokens = APNsProviderTokens(key: key, keyID: keyID, teamID: teamID, clock: .fixed(1_700_000_000))
    let token = try await tokens.token()
    #expect(token.issuedAt == 1_700_000_000)
    #expect(token.authorization == "bearer " + token.jwt)
    let parts = token.jwt.split(separator: ".", omittingEmptySubsequences: false)
    try #require(parts.count == 3)
    #expect(base64URLDecode(parts[0]) == Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8))
    #expect(base64URLDecode(parts[1]) == Array(#"{"iss":"DEF123GHIJ","iat":1700000000}"#.utf8))
    #expect(!token.jwt.contains("="))
    let signature = try #require(base64URLDecode(parts[2]))
    #expect(signature.count == 64)
    let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
    #expect(try await tool.verifiesES256(keyName: "AuthKey.p8", message: signingInput, signature: signature))
  }

  @Test func refusesIdentifiersThatAreNotTenUpperCaseLettersOrDigits() {
    for text in ["", "ABC123DEF", "ABC123DEFGH", "abc123defg", "ABC123DEF\"", "ABC 23DEFG"] {
      #expect(throws: PushGatewayError(code: .invalidIdentifier, field: "key_id", message: "")) {
        try APNsIdentifier(text, field: "key_id")
      }
    }
  }
}

@Suite struct APNsProviderTokenLifecycleTests {
  private static func tokens(_ clock: ManualUnixClock) async throws -> (APNsProviderTokens, OpenSSLTool) {
    let tool = try OpenSSLTool.make()
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    return (APNsProviderTokens(key: key, keyID: keyID, teamID: teamID, clock: clock.clock), tool)
  }

  @Test func reusesOneTokenUntilItIsFiftyMinutesOld() async throws {
    let clock = ManualUnixClock(seconds: 1_700_000_000)
    let (tokens, tool) = try await Self.tokens(clock)
    defer { tool.remove() }
    let first = try await tokens.token()
    for _ in 0..<49 {
      clock.advance(by: .seconds(60))
      #expect(try await tokens.token() == first)
    }
    clock.advance(by: .seconds(59))
    #expect(try await tokens.token() == first)
    clock.advance(by: .seconds(1))
    let second = try await tokens.token()
    #expect(second != first)
    #expect(second.issuedAt == first.issuedAt + 50 * 60)
  }

  @Test func replacesAnExpiredTokenOnlyWhenItIsTwentyMinutesOld() async throws {
    let clock = ManualUnixClock(seconds: 1_700_000_000)
    let (tokens, tool) = try await Self.tokens(clock)
    defer { tool.remove() }
    let first = try await tokens.token()
    clock.advance(by: .seconds(19 * 60 + 59))
    // Younger than 20 minutes: no new token, no retry.
    #expect(try await tokens.replacing(first) == nil)
    #expect(try await tokens.token() == first)
    clock.advance(by: .seconds(1))
    let second = try #require(try await tokens.replacing(first))
    #expect(second != first)
    #expect(second.issuedAt == first.issuedAt + 20 * 60)
    #expect(try await tokens.token() == second)
    // Another request that failed with the old token retries with the new one: no third token.
    #expect(try await tokens.replacing(first) == second)
    // And the new token itself is not replaced within 20 minutes.
    clock.advance(by: .seconds(10 * 60))
    #expect(try await tokens.replacing(second) == nil)
  }

  @Test func neverMakesTwoTokensWithinTwentyMinutes() async throws {
    let clock = ManualUnixClock(seconds: 1_700_000_000)
    let (tokens, tool) = try await Self.tokens(clock)
    defer { tool.remove() }
    var issued: [Int64] = []
    var current = try await tokens.token()
    issued.append(current.issuedAt)
    // Every minute for three hours: a request, and a 403 ExpiredProviderToken every 7 minutes.
    for minute in 1...180 {
      clock.advance(by: .seconds(60))
      let token = try await tokens.token()
      if minute % 7 == 0, let replaced = try await tokens.replacing(token) {
        current = replaced
      } else {
        current = token
      }
      if current.issuedAt != issued.last { issued.append(current.issuedAt) }
    }
    #expect(issued.count > 3)
    for (earlier, later) in zip(issued, issued.dropFirst()) { #expect(later - earlier >= 20 * 60) }
  }
}

@Suite struct APNsProviderTokenSharingTests {
  /// Two replicas (two token lifecycles over one slot, as over the gateway's store) send one token.
  @Test func replicasSharingASlotSendOneTokenAndReplaceItOnce() async throws {
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    let clock = ManualUnixClock(seconds: 1_700_000_000)
    let slot = InMemoryAPNsProviderTokenSlot()
    let replicas = (0..<2).map { _ in
      APNsProviderTokens(key: key, keyID: keyID, teamID: teamID, clock: clock.clock, slot: slot)
    }
    // Both ask at once for the first token: one is made and stored, both send it.
    async let first = replicas[0].token()
    async let second = replicas[1].token()
    let (a, b) = try await (first, second)
    #expect(a == b)
    clock.advance(by: .seconds(25 * 60))
    // One replica replaces it after a 403; the other, failing with the old one, gets the new one.
    let replaced = try #require(try await replicas[0].replacing(a))
    #expect(replaced != a)
    #expect(try await replicas[1].replacing(a) == replaced)
    #expect(try await replicas[1].token() == replaced)
    // Fifty minutes after the replacement both move to one newer token together.
    clock.advance(by: .seconds(50 * 60))
    let later = try await replicas[1].token()
    #expect(later != replaced)
    #expect(try await replicas[0].token() == later)
  }
}
