import Foundation
import NostrCurlHTTP
import NostrHTTP
import NostrPushTestSupport
import Testing

@testable import PushGateway

/// A stand-in that verifies JWTs of a fresh key, and the parts a test sends with.
private struct Rig {
  let standIn: APNsStandIn
  let client: CurlHTTPClient
  let tokens: APNsProviderTokens
  let tool: OpenSSLTool

  static let keyID = "KEY1234567"
  static let teamID = "TEAM123456"

  static func make(_ standIn: APNsStandIn, clock: UnixClock) async throws -> Rig {
    let tool = try OpenSSLTool.make()
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    try await standIn.trustJWT(
      keyID: keyID, teamID: teamID, publicKeyPEM: try await tool.publicKeyPEM(of: "AuthKey.p8"))
    let tokens = APNsProviderTokens(
      key: key, keyID: try APNsIdentifier(keyID, field: "key_id"),
      teamID: try APNsIdentifier(teamID, field: "team_id"),
      clock: clock)
    return Rig(
      standIn: standIn, client: try CurlHTTPClient(caFile: standIn.caFile), tokens: tokens, tool: tool)
  }

  func apnsClient(clock: UnixClock, credential: APNsApp.Credential? = nil) throws -> APNsClient {
    let app = try APNsApp(
      topic: "org.example.chat", environment: .sandbox, credential: credential ?? .token(tokens),
      alertTitle: "New message",
      alertBody: "Open to read")
    return APNsClient(
      app: app, transport: CurlAPNsTransport(client: client, origin: standIn.origin), clock: clock)
  }

  func end() async {
    await client.shutdown()
    tool.remove()
  }
}

private func deviceToken(_ index: Int) -> String { String(format: "%064lx", index) }
private func requestID(_ index: Int) -> String { String(format: "2c5ea4c0-4067-4e4b-9b5c-%012lx", index) }

@Suite struct APNsClientRequestTests {
  @Test func sendsExactlyTheSixFieldsTheBodyAndAVerifiableJWT() async throws {
    try await withAPNsStandIn { standIn in
      let clock = UnixClock.fixed(1_700_000_000)
      let rig = try await Rig.make(standIn, clock: clock)
      let client = try rig.apnsClient(clock: clock)
      let outcome = await client.deliver(
        try APNsWake(deviceToken: deviceToken(1), requestID: requestID(1), expiresAt: 1_700_007_200),
        deadline: .now + .seconds(10))
      // A wake expiring sooner than an hour keeps its own expiry.
      let soon = await client.deliver(
        try APNsWake(deviceToken: deviceToken(2), requestID: requestID(2), expiresAt: 1_700_000_060),
        deadline: .now + .seconds(10))
      await rig.end()
      #expect(outcome == .accepted)
      #expect(soon == .accepted)
      let recorded = try await standIn.requests()
      try #require(recorded.count == 2)
      let first = recorded[0]
      #expect(first.path == "/3/device/" + deviceToken(1))
      #expect(
        first.body == #"{"aps":{"alert":{"title":"New message","body":"Open to read"},"mutable-content":1}}"#)
      #expect(first.jwtValid == true)
      let jwt = try #require(first.header("authorization")?.dropFirst("bearer ".count))
      let sent = first.headers.filter { $0.name == "authorization" || $0.name.hasPrefix("apns-") }
        .map { "\($0.name)=\($0.value)" }.sorted()
      #expect(
        sent == [
          "apns-expiration=1700003600", "apns-id=\(requestID(1))", "apns-priority=10", "apns-push-type=alert",
          "apns-topic=org.example.chat", "authorization=bearer \(jwt)",
        ])
      #expect(recorded[1].header("apns-expiration") == "1700000060")
      // One token for both deliveries.
      #expect(try await standIn.stats().jwts == 1)
    }
  }

  @Test func presentsTheClientCertificateAndNoAuthorizationUnderCertificateAuth() async throws {
    try await withAPNsStandIn { standIn in
      let clock = UnixClock.fixed(1_700_000_000)
      let client = try CurlHTTPClient(
        caFile: standIn.caFile,
        clientCertificate: CurlClientCertificate(
          certificateFile: standIn.clientCertificateFile, keyFile: standIn.clientKeyFile))
      let app = try APNsApp(
        topic: "org.example.chat", environment: .production, credential: .certificate, alertTitle: "T",
        alertBody: "B")
      let apns = APNsClient(
        app: app, transport: CurlAPNsTransport(client: client, origin: standIn.origin), clock: clock)
      let outcome = await apns.deliver(
        try APNsWake(deviceToken: deviceToken(3), requestID: requestID(3), expiresAt: 1_700_000_600),
        deadline: .now + .seconds(10))
      await client.shutdown()
      #expect(outcome == .accepted)
      let recorded = try #require(try await standIn.requests().first)
      #expect(recorded.header("authorization") == nil)
      #expect(try await standIn.stats().clientCertificates == ["standin-client"])
    }
  }
}

@Suite struct APNsClientTokenRetryTests {
  @Test func retriesOnceWithANewTokenAfterExpiredProviderTokenOnATwentyMinuteOldToken() async throws {
    try await withAPNsStandIn { standIn in
      let clock = ManualUnixClock(seconds: 1_700_000_000)
      let rig = try await Rig.make(standIn, clock: clock.clock)
      let client = try rig.apnsClient(clock: clock.clock)
      let warmUp = await client.deliver(
        try APNsWake(deviceToken: deviceToken(10), requestID: requestID(10), expiresAt: 1_800_000_000),
        deadline: .now + .seconds(10))
      clock.advance(by: .seconds(21 * 60))
      try await standIn.script(
        #"{"\#(deviceToken(11))":{"status":403,"reason":"ExpiredProviderToken","times":1}}"#)
      let outcome = await client.deliver(
        try APNsWake(deviceToken: deviceToken(11), requestID: requestID(11), expiresAt: 1_800_000_000),
        deadline: .now + .seconds(10))
      await rig.end()
      #expect(warmUp == .accepted)
      #expect(outcome == .accepted)
      let attempts = try await standIn.requests().filter { $0.path.hasSuffix(deviceToken(11)) }
      #expect(attempts.count == 2)
      #expect(attempts.allSatisfy { $0.jwtValid == true && $0.header("apns-id") == requestID(11) })
      #expect(attempts.first?.header("authorization") != attempts.last?.header("authorization"))
      #expect(try await standIn.stats().jwts == 2)
    }
  }

  @Test func keepsATokenYoungerThanTwentyMinutesAndReportsAConfigurationFault() async throws {
    try await withAPNsStandIn { standIn in
      let clock = ManualUnixClock(seconds: 1_700_000_000)
      let rig = try await Rig.make(standIn, clock: clock.clock)
      let client = try rig.apnsClient(clock: clock.clock)
      try await standIn.script(
        #"{"\#(deviceToken(12))":{"status":403,"reason":"ExpiredProviderToken","times":1}}"#)
      let outcome = await client.deliver(
        try APNsWake(deviceToken: deviceToken(12), requestID: requestID(12), expiresAt: 1_800_000_000),
        deadline: .now + .seconds(10))
      await rig.end()
      #expect(outcome == .configurationFault(reason: "ExpiredProviderToken"))
      #expect(try await standIn.requests().count == 1)
    }
  }
}

@Suite struct APNsAnswerTableTests {
  /// Every row of the answer table, scripted on the stand-in and sent over TLS + HTTP/2.
  @Test func mapsEachAPNsAnswerToItsOutcome() async throws {
    let rows: [(script: String, expected: APNsOutcome)] = [
      (#"{"status":200}"#, .accepted),
      (
        #"{"status":410,"reason":"Unregistered","timestamp":1700000000123}"#,
        .invalidEndpoint(invalidAt: 1_700_000_000)
      ),
      (#"{"status":410,"reason":"ExpiredToken"}"#, .invalidEndpoint(invalidAt: nil)),
      (#"{"status":400,"reason":"BadDeviceToken"}"#, .configurationFault(reason: "BadDeviceToken")),
      (
        #"{"status":400,"reason":"DeviceTokenNotForTopic"}"#,
        .configurationFault(reason: "DeviceTokenNotForTopic")
      ),
      (#"{"status":400,"reason":"BadTopic"}"#, .configurationFault(reason: "BadTopic")),
      (
        #"{"status":403,"reason":"InvalidProviderToken"}"#,
        .configurationFault(reason: "InvalidProviderToken")
      ),
      (
        #"{"status":429,"reason":"TooManyProviderTokenUpdates"}"#,
        .configurationFault(reason: "TooManyProviderTokenUpdates")
      ),
      (#"{"status":429,"reason":"TooManyRequests"}"#, .retry(retryAfterSeconds: nil)),
      (#"{"status":500,"reason":"InternalServerError"}"#, .retry(retryAfterSeconds: nil)),
      (#"{"status":503,"reason":"ServiceUnavailable"}"#, .retry(retryAfterSeconds: nil)),
      (#"{"status":400,"reason":"BadExpirationDate"}"#, .invalidRequest(reason: "BadExpirationDate")),
      (#"{"status":413,"reason":"PayloadTooLarge"}"#, .invalidRequest(reason: "PayloadTooLarge")),
      (#"{"status":410,"reason":"Gone"}"#, .invalidRequest(reason: "Gone")),
      (#"{"stall":true}"#, .retry(retryAfterSeconds: nil)),
    ]
    try await withAPNsStandIn { standIn in
      let clock = UnixClock.fixed(1_700_000_000)
      let rig = try await Rig.make(standIn, clock: clock)
      let client = try rig.apnsClient(clock: clock)
      let script = rows.enumerated().map { "\"\(deviceToken(100 + $0.offset))\":\($0.element.script)" }
      try await standIn.script("{" + script.joined(separator: ",") + "}")
      let outcomes = await withTaskGroup(of: (Int, APNsOutcome).self) { group in
        for index in rows.indices {
          group.addTask {
            let wake = try! APNsWake(
              deviceToken: deviceToken(100 + index), requestID: requestID(100 + index),
              expiresAt: 1_700_000_600)
            // The stalled row waits out a short deadline; the others have time to spare under load.
            let wait: Duration = rows[index].script.contains("stall") ? .seconds(1) : .seconds(20)
            return (index, await client.deliver(wake, deadline: .now + wait))
          }
        }
        var outcomes: [Int: APNsOutcome] = [:]
        for await (index, outcome) in group { outcomes[index] = outcome }
        return outcomes
      }
      await rig.end()
      for (index, row) in rows.enumerated() {
        #expect(outcomes[index] == row.expected, "row \(row.script)")
      }
    }
  }

  @Test func honoursARetryAfterWithinAnHour() {
    let busy = APNsResponse(
      status: 429, headers: ["retry-after": "120"], body: Array(#"{"reason":"TooManyRequests"}"#.utf8))
    #expect(APNsOutcome.classify(busy) == .retry(retryAfterSeconds: 120))
    let long = APNsResponse(status: 503, headers: ["retry-after": "90000"], body: [])
    #expect(APNsOutcome.classify(long) == .retry(retryAfterSeconds: 3600))
    let bad = APNsResponse(status: 503, headers: ["retry-after": "soon"], body: [])
    #expect(APNsOutcome.classify(bad) == .retry(retryAfterSeconds: nil))
  }
}

@Suite struct APNsWakeAndAppTests {
  @Test func refusesADeviceTokenThatIsNotLowerCaseHex() {
    for token in [
      "", String(repeating: "a", count: 62), String(repeating: "A", count: 64),
      String(repeating: "g", count: 64),
      String(repeating: "a", count: 65), String(repeating: "a", count: 202),
    ] {
      #expect(throws: PushGatewayError(code: .invalidDeviceToken, field: "endpoint", message: "")) {
        try APNsWake(deviceToken: token, requestID: requestID(1), expiresAt: 1)
      }
    }
  }

  @Test func refusesARequestIDThatIsNotALowerCaseUUIDv4() {
    for id in ["", "2C5EA4C0-4067-4E4B-9B5C-000000000001", "2c5ea4c0-4067-1e4b-9b5c-000000000001", "x"] {
      #expect(throws: PushGatewayError(code: .invalidRequestID, field: "request_id", message: "")) {
        try APNsWake(deviceToken: deviceToken(1), requestID: id, expiresAt: 1)
      }
    }
  }

  @Test func escapesTheAlertTextAndRefusesABodyOver4096Bytes() throws {
    let app = try APNsApp(
      topic: "org.example.chat", environment: .production, credential: .certificate, alertTitle: "Say \"hi\"",
      alertBody: "line\nbreak")
    #expect(
      String(decoding: app.body, as: UTF8.self)
        == #"{"aps":{"alert":{"title":"Say \"hi\"","body":"line\nbreak"},"mutable-content":1}}"#)
    #expect(throws: PushGatewayError(code: .invalidApp, field: "alert", message: "")) {
      try APNsApp(
        topic: "org.example.chat", environment: .production, credential: .certificate, alertTitle: "T",
        alertBody: String(repeating: "x", count: 4096))
    }
    #expect(throws: PushGatewayError(code: .invalidApp, field: "topic", message: "")) {
      try APNsApp(
        topic: "bad topic", environment: .production, credential: .certificate, alertTitle: "T",
        alertBody: "B")
    }
  }
}

@Suite struct APNsStandInJWTCheckTests {
  /// The stand-in's JWT check can fail: a token signed by another key is refused.
  @Test func aTokenFromAnotherKeyIsRefusedAsAConfigurationFault() async throws {
    try await withAPNsStandIn { standIn in
      let clock = UnixClock.fixed(1_700_000_000)
      let rig = try await Rig.make(standIn, clock: clock)
      let other = try APNsSigningKey(pem: try await rig.tool.ecKey("Other.p8"))
      let tokens = APNsProviderTokens(
        key: other, keyID: try APNsIdentifier(Rig.keyID, field: "key_id"),
        teamID: try APNsIdentifier(Rig.teamID, field: "team_id"), clock: clock)
      let client = try rig.apnsClient(clock: clock, credential: .token(tokens))
      let outcome = await client.deliver(
        try APNsWake(deviceToken: deviceToken(20), requestID: requestID(20), expiresAt: 1_700_000_600),
        deadline: .now + .seconds(10))
      await rig.end()
      #expect(outcome == .configurationFault(reason: "InvalidProviderToken"))
      #expect(try await standIn.requests().first?.jwtValid == false)
    }
  }
}
