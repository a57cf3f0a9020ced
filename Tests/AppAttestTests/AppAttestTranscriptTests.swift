import AppAttest
import NostrEvent
import NostrJSON
import Testing

/// `AppAttestTranscript` builds the exact client data bytes of the spec's two forms, and refuses
/// inputs the gateway never issues.
@Suite struct AppAttestTranscriptTests {
  static let url = "https://push.example.org"
  /// 32 bytes 00…1f, unpadded base64url.
  static let challenge = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
  static let owner = String(repeating: "ab", count: 32)

  @Test func theInstallationTranscriptIsTheDomainLineAndTheJSONInTheSpecsKeyOrder() throws {
    let transcript = try AppAttestTranscript.installation(
      publicURL: Self.url, appProfile: "chat\"app", challenge: Self.challenge, endpoint: "0a1b",
      expiresAt: 1_767_225_600, owner: Self.owner)
    let expected =
      "nostr-push.installation.v1\n{\"audience\":\"https://push.example.org/v1/installations\","
      + "\"app_profile\":\"chat\\\"app\",\"challenge\":\"\(Self.challenge)\",\"endpoint\":\"0a1b\","
      + "\"expires_at\":1767225600,\"owner\":\"\(Self.owner)\"}"
    #expect(String(decoding: transcript.clientData, as: UTF8.self) == expected)
    #expect(transcript.clientDataHash == NostrSHA256.hash(Array(expected.utf8)))
    #expect(transcript.route == .installation)
  }

  @Test func anAssertionTranscriptSortsTheRequestsFieldsWithAudienceAndChallenge() throws {
    let body = JSONObject([
      "v": .integer(1), "installation_handle": .string("h1"), "relay_pubkey": .string("cd"),
      "generation": .integer(3), "expires_at": .integer(1_767_225_600), "challenge_id": .string("c9"),
      "assertion": .string("AAAA"),
    ])
    let transcript = try AppAttestTranscript.assertion(
      route: .delegation, publicURL: Self.url, challenge: Self.challenge, fields: body)
    let expected =
      "nostr-push.delegation.v1\n{\"audience\":\"https://push.example.org/v1/delegations\","
      + "\"challenge\":\"\(Self.challenge)\",\"expires_at\":1767225600,\"generation\":3,"
      + "\"installation_handle\":\"h1\",\"relay_pubkey\":\"cd\",\"v\":1}"
    #expect(String(decoding: transcript.clientData, as: UTF8.self) == expected)
    // The same fields in another order, without the App Attest members, give the same bytes.
    let reordered = JSONObject([
      "relay_pubkey": .string("cd"), "expires_at": .integer(1_767_225_600), "v": .integer(1),
      "generation": .integer(3), "installation_handle": .string("h1"),
    ])
    #expect(
      try AppAttestTranscript.assertion(
        route: .delegation, publicURL: Self.url, challenge: Self.challenge, fields: reordered) == transcript)
  }

  @Test func eachRouteHasItsOwnDomainAndAudience() throws {
    let fields = JSONObject(["v": .integer(1), "installation_handle": .string("h1")])
    var seen = Set<[UInt8]>()
    for route in AppAttestRoute.allCases where !route.isAttested {
      let transcript = try AppAttestTranscript.assertion(
        route: route, publicURL: Self.url, challenge: Self.challenge, fields: fields)
      let text = String(decoding: transcript.clientData, as: UTF8.self)
      #expect(text.hasPrefix("nostr-push.\(route.rawValue).v1\n{\"audience\":\"\(Self.url)\(route.path)\""))
      seen.insert(transcript.clientData)
    }
    #expect(seen.count == 4)
    #expect(AppAttestRoute.installationEndpoint.path == "/v1/installations/endpoint")
    #expect(AppAttestRoute.delegationRevoke.domain == "nostr-push.delegation.revoke.v1")
  }

  @Test func inputsTheGatewayNeverIssuesAreRefused() {
    func field(_ body: () throws -> AppAttestTranscript) -> String? {
      do {
        _ = try body()
        return nil
      } catch {
        let error = error as? AppAttestError
        #expect(error?.code == .invalidTranscript)
        return error?.field
      }
    }
    let padded = Self.challenge + "="
    let standard = "+/" + Self.challenge.dropFirst(2)
    for challenge in ["", padded, standard, String(Self.challenge.dropLast()), Self.challenge + "A"] {
      #expect(
        field {
          try .installation(
            publicURL: Self.url, appProfile: "p", challenge: challenge, endpoint: "e", expiresAt: 1,
            owner: Self.owner)
        } == "challenge", "\(challenge)")
    }
    #expect(
      field {
        try .installation(
          publicURL: Self.url + "/", appProfile: "p", challenge: Self.challenge, endpoint: "e", expiresAt: 1,
          owner: Self.owner)
      } == "public_url")
    #expect(
      field {
        try .installation(
          publicURL: Self.url, appProfile: "p", challenge: Self.challenge, endpoint: "e", expiresAt: 1,
          owner: Self.owner.uppercased())
      } == "owner")
    #expect(
      field {
        try .assertion(
          route: .delegation, publicURL: Self.url, challenge: Self.challenge,
          fields: JSONObject(["audience": .string("https://elsewhere")]))
      } == "audience")
    #expect(
      field {
        try .assertion(
          route: .installationRevoke, publicURL: Self.url, challenge: Self.challenge,
          fields: JSONObject(["challenge": .string(Self.challenge)]))
      } == "challenge")
    #expect(
      field {
        try .assertion(
          route: .installation, publicURL: Self.url, challenge: Self.challenge, fields: JSONObject())
      } == "route")
  }
}

/// `AppAttestChallenge.issue` makes 32 random bytes in base64url that the transcript accepts.
@Suite struct AppAttestChallengeTests {
  @Test func anIssuedChallengeIsThirtyTwoFreshBytesForFiveMinutes() throws {
    let first = AppAttestChallenge.issue(now: 1000)
    let second = AppAttestChallenge.issue(now: 1000)
    #expect(first.expiresAt == 1300)
    #expect(AppAttestBase64.decode(first.challenge)?.count == 32)
    #expect(first.challenge.utf8.count == 43)
    #expect(AppAttestChallenge.isID(first.id))
    #expect(first.id != second.id && first.challenge != second.challenge)
    #expect(!AppAttestChallenge.isID(first.id.uppercased()))
    _ = try AppAttestTranscript.installation(
      publicURL: "https://p.example", appProfile: "p", challenge: first.challenge, endpoint: "e",
      expiresAt: 1,
      owner: String(repeating: "0", count: 64))
  }
}
