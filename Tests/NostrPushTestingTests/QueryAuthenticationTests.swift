import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct QueryAuthenticationTests {
  /// One way a `/query` can be wrongly authenticated.
  enum Breakage: String, CaseIterable, Sendable {
    case missing, wrongScheme, badSignature, expired, wrongURL, wrongMethod, wrongPayload
  }

  @Test(arguments: Breakage.allCases)
  func refusesABadlyAuthenticatedQuery(breakage: Breakage) async throws {
    let scenario = Scenario()
    try await Scenario.serving(
      RelayFixtureData(events: [try scenario.message("x", offset: 1)])
    ) { server, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let body = Array(#"[{"kinds":[9]}]"#.utf8)
      let url = origin + "/query"
      let key = scenario.account
      let header: String?
      switch breakage {
      case .missing:
        header = nil
      case .wrongScheme:
        let valid = try NIP98.authorizationHeader(
          url: url, method: "POST", body: body, key: key, now: Scenario.now)
        header = "Bearer " + valid.dropFirst("Nostr ".count)
      case .badSignature:
        header = try Self.tamperedHeader(url: url, body: body, key: key)
      case .expired:
        header = try NIP98.authorizationHeader(
          url: url, method: "POST", body: body, key: key, now: Scenario.now - 120)
      case .wrongURL:
        header = try NIP98.authorizationHeader(
          url: origin + "/other", method: "POST", body: body, key: key, now: Scenario.now)
      case .wrongMethod:
        header = try NIP98.authorizationHeader(
          url: url, method: "GET", body: body, key: key, now: Scenario.now)
      case .wrongPayload:
        header = try NIP98.authorizationHeader(
          url: url, method: "POST", body: Array("[]".utf8), key: key, now: Scenario.now)
      }
      var headers = ["Content-Type": "application/json"]
      headers["Authorization"] = header
      let response = try await client.send("POST", url, headers: headers, body: body)
      #expect(response.status == 401)
      #expect(
        try JSONReader().read(response.body).objectValue?["error"]?.stringValue?.hasPrefix("auth-required")
          == true)
      #expect(server.requests().first?.authorizedPubkey == nil)
    }
  }

  @Test func refusesAReplayedAuthorization() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let body = Array(#"[{"kinds":[9]}]"#.utf8)
      let url = origin + "/query"
      let header = try NIP98.authorizationHeader(
        url: url, method: "POST", body: body, key: scenario.account, now: Scenario.now)
      let first = try await client.send("POST", url, headers: ["Authorization": header], body: body)
      let second = try await client.send("POST", url, headers: ["Authorization": header], body: body)
      #expect(first.status == 200)
      #expect(second.status == 401)
    }
  }

  @Test func checksAgainstTheRelayClockNotTheSystemClock() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData()) { server, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let systemNow = Int64(Date().timeIntervalSince1970)
      let atSystemTime = try await client.query(origin, "[]", key: scenario.account, now: systemNow)
      server.setNow(systemNow)
      let afterSetNow = try await client.query(origin, "[]", key: scenario.account, now: systemNow)
      #expect(atSystemTime.status == 401)
      #expect(afterSetNow.status == 200)
    }
  }

  /// A header whose event has a valid shape but a signature from another message.
  static func tamperedHeader(url: String, body: [UInt8], key: SecretKey) throws -> String {
    let valid = try NIP98.authorizationHeader(
      url: url, method: "POST", body: body, key: key, now: Scenario.now)
    let decoded = Data(base64Encoded: String(valid.dropFirst("Nostr ".count)))!
    var object = try JSONReader().read(Array(decoded)).objectValue!
    let signature = object["sig"]!.stringValue!
    let flipped = (signature.first == "0" ? "1" : "0") + signature.dropFirst()
    object["sig"] = .string(flipped)
    return "Nostr " + Data(JSONWriter.bytes(.object(object))).base64EncodedString()
  }
}
