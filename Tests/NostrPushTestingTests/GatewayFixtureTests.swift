import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import Testing

/// The gateway fixture of `Docs/VendoringPushRelay.md` over real loopback sockets: grants, the strict delivery
/// checks in their order, scripted answers, the quota and the APNs record.
@Suite(.timeLimit(.minutes(1))) struct GatewayFixtureTests {
  static let now: Int64 = 1_767_226_200
  static let relayKey = try! SecretKey(
    hex: "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
  static let otherKey = try! SecretKey(
    hex: "ffa7a0616ec26dabc85b5a17b7cb452764b2dc66b40334559fe04ad7d29da7c2")
  static let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"

  /// A running gateway with a client; `stop()` ends both.
  struct Harness: LoopbackFixture {
    let gateway: GatewayFixture
    let base: String
    let client = HTTPTestClient()

    static func start(quota: Int = 10, now: Int64 = GatewayFixtureTests.now) async throws -> Harness {
      let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: quota, now: now))
      let url = try await gateway.start()
      return Harness(gateway: gateway, base: url.absoluteString)
    }

    func stop() async {
      client.invalidate()
      await gateway.stop()
    }

    func grant(token: String = GatewayFixtureTests.token, generation: Int64 = 1, ttl: Int64 = 3600) throws
      -> String
    {
      try gateway.issueGrant(
        relayPubkey: GatewayFixtureTests.relayKey.publicKeyHex, deviceToken: token, generation: generation,
        ttlSeconds: ttl
      ).grant
    }

    /// POSTs a delivery with a NIP-98 header built from `tags` (nil: the correct ones).
    func deliver(
      grant: String, requestID: String = UUID().uuidString.lowercased(), expiresAt: Int64? = nil,
      body: [UInt8]? = nil, key: SecretKey = GatewayFixtureTests.relayKey, createdAt: Int64? = nil,
      tags: (([UInt8], String) -> [[String]])? = nil, transport: String = "apns", authorize: Bool = true
    ) async throws -> HTTPTestClient.Response {
      let url = base + "/v1/deliveries/" + transport
      let bytes =
        body
        ?? Array(
          #"{"v":1,"endpoint_grant":"\#(grant)","request_id":"\#(requestID)","expires_at":\#(expiresAt ?? GatewayFixtureTests.now + 600)}"#
            .utf8)
      var headers = ["Content-Type": "application/json"]
      if authorize {
        let signedTags =
          tags?(bytes, url) ?? [
            ["u", url], ["method", "POST"], ["payload", Hex.encode(NostrSHA256.hash(bytes))],
            ["nonce", Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) })],
          ]
        let event = try UnsignedEvent(
          pubkey: key.publicKeyHex, createdAt: createdAt ?? gateway.now(), kind: 27235, tags: signedTags,
          content: ""
        ).signed(with: key)
        headers["Authorization"] = "Nostr " + Data(event.jsonBytes()).base64EncodedString()
      }
      return try await client.send("POST", url, headers: headers, body: bytes)
    }

    func listing() async throws -> JSONObject {
      let response = try await client.send("GET", base + "/v1/test/deliveries")
      #expect(response.status == 200)
      return try #require(try JSONReader().read(response.body).objectValue)
    }
  }

  static func text(_ response: HTTPTestClient.Response) -> String {
    String(decoding: response.body, as: UTF8.self)
  }

  @Test func issuesAnOpaqueGrantOverHTTP() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let body =
        #"{"relay_pubkey":"\#(Self.relayKey.publicKeyHex)","device_token":"\#(Self.token)","ttl_seconds":600}"#
      let response = try await harness.client.send(
        "POST", harness.base + "/v1/test/grants", headers: ["Content-Type": "application/json"],
        body: Array(body.utf8))
      #expect(response.status == 200)
      let object = try #require(try JSONReader().read(response.body).objectValue)
      #expect(object.keys == ["endpoint_grant", "expires_at"])
      #expect(object["expires_at"] == .integer(Self.now + 600))
      let grant = try #require(object["endpoint_grant"]?.stringValue)
      #expect(!grant.contains(Self.token))
      #expect(Data(base64Encoded: grant) != nil)
      let delivered = try await harness.deliver(grant: grant)
      #expect(delivered.status == 200)
      #expect(Self.text(delivered) == #"{"status":"accepted"}"#)
    }
  }

  @Test(arguments: [
    #"{"device_token":"aa"}"#,
    #"{"relay_pubkey":"RELAY","device_token":"zz"}"#,
    #"{"relay_pubkey":"RELAY","device_token":"abc"}"#,
    #"{"relay_pubkey":"RELAY","device_token":"aa","ttl_seconds":0}"#,
    #"{"relay_pubkey":"RELAY","device_token":"aa","ttl_seconds":2592001}"#,
    #"{"relay_pubkey":"RELAY","device_token":"aa","generation":0}"#,
    #"{"relay_pubkey":"RELAY","device_token":"aa","generation":"1"}"#,
    #"{"relay_pubkey":"RELAY","device_token":"aa","extra":1}"#,
    #"{"relay_pubkey":"ABCDEF","device_token":"aa"}"#,
    #"not json"#,
  ])
  func refusesAMalformedGrantRequest(template: String) async throws {
    try await withStarted(try await Harness.start()) { harness in
      let body = template.replacingOccurrences(of: "RELAY", with: Self.relayKey.publicKeyHex)
      let response = try await harness.client.send(
        "POST", harness.base + "/v1/test/grants", body: Array(body.utf8))
      #expect(response.status == 400)
      #expect(Self.text(response) == #"{"error":"invalid_request"}"#)
    }
  }

  @Test func recordsTheAPNsRequestOfAnAcceptedDelivery() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let requestID = UUID().uuidString.lowercased()
      let response = try await harness.deliver(
        grant: try harness.grant(), requestID: requestID, expiresAt: Self.now + 300)
      #expect(response.status == 200)
      let delivery = try #require(harness.gateway.deliveries().first)
      #expect(delivery.requestID == requestID)
      #expect(delivery.deviceToken == Self.token)
      #expect(delivery.relayPubkey == Self.relayKey.publicKeyHex)
      #expect(delivery.receivedAt == Self.now)
      #expect(
        delivery.headers == [
          "apns-id": requestID, "apns-push-type": "alert", "apns-priority": "10",
          "apns-expiration": String(Self.now + 300), "apns-topic": "org.nostrpushkit.demo",
        ])
      #expect(
        delivery.body == #"{"aps":{"alert":{"body":"Reconnect to your relay now"},"mutable-content":1}}"#)
      let listing = try await harness.listing()
      let listed = try #require(listing["deliveries"]?.arrayValue?.first?.objectValue)
      #expect(
        listed.keys == ["request_id", "device_token", "relay_pubkey", "received_at", "headers", "body"])
      #expect(listed["headers"]?.objectValue?.keys == GatewayDelivery.headerNames)
      #expect(listed["body"]?.stringValue == GatewayFixture.apnsBody)
      let requests = try #require(listing["requests"]?.arrayValue)
      #expect(
        requests == [
          .object(
            JSONObject([
              "request_id": .string(requestID), "device_token": .string(Self.token), "status": .integer(200),
            ]))
        ])
    }
  }

  @Test func answersAnUnknownTransportBeforeAnyOtherCheck() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let big = [UInt8](repeating: UInt8(ascii: "x"), count: 9000)
      let response = try await harness.deliver(grant: "g", body: big, transport: "fcm", authorize: false)
      #expect(response.status == 404)
      #expect(Self.text(response) == #"{"error":"unsupported_transport"}"#)
      #expect(harness.gateway.requests().isEmpty)
    }
  }

  @Test func refusesABodyOver8192Bytes() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let big = [UInt8](repeating: UInt8(ascii: " "), count: 8193)
      let response = try await harness.deliver(grant: "g", body: big, authorize: false)
      #expect(response.status == 413)
    }
  }

  @Test(arguments: [
    #"{"v":1, "endpoint_grant":"GRANT","request_id":"ID","expires_at":EXP}"#,
    #"{"endpoint_grant":"GRANT","v":1,"request_id":"ID","expires_at":EXP}"#,
    #"{"v":2,"endpoint_grant":"GRANT","request_id":"ID","expires_at":EXP}"#,
    #"{"v":1,"endpoint_grant":"GRANT","request_id":"ID","expires_at":"EXP"}"#,
    #"{"v":1,"endpoint_grant":"GRANT","request_id":"ID","expires_at":EXP.0}"#,
    #"{"v":1,"endpoint_grant":"GRANT","request_id":"UPPER","expires_at":EXP}"#,
    #"{"v":1,"endpoint_grant":"","request_id":"ID","expires_at":EXP}"#,
    #"{"v":1,"endpoint_grant":"GRANT","request_id":"ID","expires_at":EXP,"class":"default"}"#,
    #"{"v":1,"endpoint_grant":"GRANT","request_id":"ID"}"#,
    #"{"v":1,"endpoint_grant":"GRANT","request_id":"ID","expires_at":EXP}\n"#,
  ])
  func refusesABodyNotInTheExactCompactForm(template: String) async throws {
    try await withStarted(try await Harness.start()) { harness in
      let id = UUID().uuidString.lowercased()
      let body = template.replacingOccurrences(of: "GRANT", with: try harness.grant())
        .replacingOccurrences(of: "UPPER", with: id.uppercased()).replacingOccurrences(of: "ID", with: id)
        .replacingOccurrences(of: "EXP", with: String(Self.now + 60)).replacingOccurrences(
          of: "\\n", with: "\n")
      let response = try await harness.deliver(grant: "", body: Array(body.utf8))
      #expect(response.status == 400)
      #expect(Self.text(response) == #"{"error":"invalid_request"}"#)
    }
  }

  @Test func refusesAGrantOver4096Bytes() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let response = try await harness.deliver(grant: String(repeating: "A", count: 4097))
      #expect(response.status == 400)
    }
  }

  /// One way each for the exact NIP-98 of the gateway to refuse a header.
  enum AuthFault: String, CaseIterable, Sendable {
    case missing, normalizedURL, lowercaseMethod, noNonce, noPayload, wrongPayload, tooOld, tooNew, wrongKind
  }

  @Test(arguments: AuthFault.allCases)
  func refusesAnythingButExactNIP98(fault: AuthFault) async throws {
    try await withStarted(try await Harness.start()) { harness in
      let grant = try harness.grant()
      let nonce = ["nonce", "0123456789abcdef0123456789abcdef"]
      let response: HTTPTestClient.Response
      switch fault {
      case .missing:
        response = try await harness.deliver(grant: grant, authorize: false)
      case .normalizedURL:
        response = try await harness.deliver(grant: grant) { body, url in
          [["u", url + "/"], ["method", "POST"], ["payload", Hex.encode(NostrSHA256.hash(body))], nonce]
        }
      case .lowercaseMethod:
        response = try await harness.deliver(grant: grant) { body, url in
          [["u", url], ["method", "post"], ["payload", Hex.encode(NostrSHA256.hash(body))], nonce]
        }
      case .noNonce:
        response = try await harness.deliver(grant: grant) { body, url in
          [["u", url], ["method", "POST"], ["payload", Hex.encode(NostrSHA256.hash(body))]]
        }
      case .noPayload:
        response = try await harness.deliver(grant: grant) { _, url in
          [["u", url], ["method", "POST"], nonce]
        }
      case .wrongPayload:
        response = try await harness.deliver(grant: grant) { _, url in
          [["u", url], ["method", "POST"], ["payload", Hex.encode(NostrSHA256.hash([1]))], nonce]
        }
      case .tooOld:
        response = try await harness.deliver(grant: grant, createdAt: Self.now - 61)
      case .tooNew:
        response = try await harness.deliver(grant: grant, createdAt: Self.now + 31)
      case .wrongKind:
        let url = harness.base + "/v1/deliveries/apns"
        let body = Array(
          #"{"v":1,"endpoint_grant":"\#(grant)","request_id":"\#(UUID().uuidString.lowercased())","expires_at":\#(Self.now + 60)}"#
            .utf8)
        let event = try UnsignedEvent(
          pubkey: Self.relayKey.publicKeyHex, createdAt: Self.now, kind: 1,
          tags: [["u", url], ["method", "POST"], ["payload", Hex.encode(NostrSHA256.hash(body))], nonce],
          content: ""
        ).signed(with: Self.relayKey)
        response = try await harness.client.send(
          "POST", url, headers: ["Authorization": "Nostr " + Data(event.jsonBytes()).base64EncodedString()],
          body: body)
      }
      #expect(response.status == 401)
      #expect(Self.text(response) == #"{"error":"invalid_auth"}"#)
      #expect(harness.gateway.deliveries().isEmpty)
    }
  }

  @Test func acceptsTheEdgesOfTheWindow() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let grant = try harness.grant()
      #expect(try await harness.deliver(grant: grant, createdAt: Self.now - 60).status == 200)
      #expect(try await harness.deliver(grant: grant, createdAt: Self.now + 30).status == 200)
    }
  }

  @Test func refusesAReplayedAuthEvent() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let grant = try harness.grant()
      let url = harness.base + "/v1/deliveries/apns"
      let body = Array(
        #"{"v":1,"endpoint_grant":"\#(grant)","request_id":"\#(UUID().uuidString.lowercased())","expires_at":\#(Self.now + 60)}"#
          .utf8)
      let header = try NIP98.authorizationHeader(
        url: url, method: "POST", body: body, key: Self.relayKey, now: Self.now)
      let first = try await harness.client.send("POST", url, headers: ["Authorization": header], body: body)
      let second = try await harness.client.send("POST", url, headers: ["Authorization": header], body: body)
      #expect(first.status == 200)
      #expect(second.status == 401)
    }
  }

  /// One way each for a grant check to refuse.
  enum GrantFault: String, CaseIterable, Sendable {
    case otherSigner, garbage, pastGrantExpiry, alreadyExpired
  }

  @Test(arguments: GrantFault.allCases)
  func refusesAGrantThatDoesNotHold(fault: GrantFault) async throws {
    try await withStarted(try await Harness.start()) { harness in
      let grant = try harness.grant(ttl: 600)
      let response: HTTPTestClient.Response
      switch fault {
      case .otherSigner: response = try await harness.deliver(grant: grant, key: Self.otherKey)
      case .garbage:
        response = try await harness.deliver(grant: "AgAAAAAA" + String(grant.dropFirst(8).reversed()))
      case .pastGrantExpiry: response = try await harness.deliver(grant: grant, expiresAt: Self.now + 601)
      case .alreadyExpired: response = try await harness.deliver(grant: grant, expiresAt: Self.now - 1)
      }
      #expect(response.status == 404)
      #expect(Self.text(response) == #"{"error":"invalid_grant"}"#)
    }
  }

  @Test func acceptsAnExpiryEqualToNowAndToTheGrants() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let grant = try harness.grant(ttl: 600)
      #expect(try await harness.deliver(grant: grant, expiresAt: Self.now).status == 200)
      #expect(try await harness.deliver(grant: grant, expiresAt: Self.now + 600).status == 200)
    }
  }

  @Test(arguments: [(200, false), (410, false), (400, false), (503, true), (429, true)])
  func keepsTheRequestIDOnlyAfterATerminalAnswer(status: Int, released: Bool) async throws {
    try await withStarted(try await Harness.start()) { harness in
      let grant = try harness.grant()
      let id = UUID().uuidString.lowercased()
      harness.gateway.script([GatewayScriptEntry(status: status)])
      #expect(try await harness.deliver(grant: grant, requestID: id).status == status)
      let again = try await harness.deliver(grant: grant, requestID: id)
      #expect(again.status == (released ? 200 : 404))
      #expect(harness.gateway.deliveries().map(\.requestID) == (released ? [id] : status == 200 ? [id] : []))
    }
  }

  @Test func limitsAnsweredAttemptsPerDeviceIn10Seconds() async throws {
    try await withStarted(try await Harness.start(quota: 3)) { harness in
      let grant = try harness.grant()
      let other = try harness.grant(token: "beef")
      harness.gateway.script([GatewayScriptEntry(status: 503, times: 2)])
      for expected in [503, 503, 200] { #expect(try await harness.deliver(grant: grant).status == expected) }
      // A quota refusal reads as one (`Docs/Robustness.md`), never as a dead grant: 429 with the
      // seconds until the oldest counted attempt leaves the window.
      let refused = try await harness.deliver(grant: grant)
      #expect(refused.status == 429)
      #expect(Self.text(refused) == #"{"status":"rate_limited","retry_after_seconds":10}"#)
      #expect(try await harness.deliver(grant: other).status == 200)
      harness.gateway.advanceClock(by: 9)
      let later = try await harness.deliver(grant: grant)
      #expect(later.status == 429)
      #expect(Self.text(later) == #"{"status":"rate_limited","retry_after_seconds":1}"#)
      #expect(harness.gateway.requests().suffix(1).map(\.status) == [429])
      harness.gateway.advanceClock(by: 1)
      #expect(try await harness.deliver(grant: grant).status == 200)
    }
  }

  @Test func turnsTheQuotaOffAtZero() async throws {
    try await withStarted(try await Harness.start(quota: 0)) { harness in
      let grant = try harness.grant()
      for _ in 0..<15 { #expect(try await harness.deliver(grant: grant).status == 200) }
    }
  }

  @Test func answersTheDevicesEntryBeforeAnUnkeyedOneAndDefaultsAfter() async throws {
    try await withStarted(try await Harness.start()) { harness in
      let mine = try harness.grant()
      let other = try harness.grant(token: "beef", generation: 7)
      harness.gateway.script([
        GatewayScriptEntry(status: 503, body: #"{"status":"retry","retry_after_seconds":5}"#),
        GatewayScriptEntry(deviceToken: Self.token, status: 410, times: 2),
      ])
      let first = try await harness.deliver(grant: mine)
      #expect(first.status == 410)
      #expect(Self.text(first) == #"{"status":"invalid_endpoint","generation":1,"invalid_at":null}"#)
      let second = try await harness.deliver(grant: other)
      #expect(second.status == 503)
      #expect(Self.text(second) == #"{"status":"retry","retry_after_seconds":5}"#)
      #expect(try await harness.deliver(grant: mine).status == 410)
      #expect(try await harness.deliver(grant: mine).status == 200)
      #expect(try await harness.deliver(grant: other).status == 200)
    }
  }

  @Test(arguments: [
    (503, #"{"status":"retry","retry_after_seconds":null}"#), (429, #"{"error":"rate_limited"}"#),
    (410, #"{"status":"invalid_endpoint","generation":3,"invalid_at":null}"#),
  ])
  func givesTheDefaultBodyOfAScriptedStatus(status: Int, body: String) async throws {
    try await withStarted(try await Harness.start()) { harness in
      harness.gateway.script([GatewayScriptEntry(status: status)])
      let response = try await harness.deliver(grant: try harness.grant(generation: 3))
      #expect(response.status == status)
      #expect(Self.text(response) == body)
      #expect(harness.gateway.deliveries().isEmpty)
    }
  }

  @Test func recordsNoDeliveryForA2xxThatIsNotAccepted() async throws {
    try await withStarted(try await Harness.start()) { harness in
      harness.gateway.script([GatewayScriptEntry(status: 200, body: "{}")])
      let response = try await harness.deliver(grant: try harness.grant())
      #expect(response.status == 200)
      #expect(Self.text(response) == "{}")
      #expect(harness.gateway.deliveries().isEmpty)
      #expect(harness.gateway.requests().map(\.status) == [200])
    }
  }

  @Test func parsesAScriptDocument() throws {
    let entries = try GatewayScriptEntry.parse(
      json: Array(
        #"[{"status":503,"times":2},{"device_token":"AB","status":200,"body":"{}","delay_ms":10}]"#.utf8))
    #expect(
      entries == [
        GatewayScriptEntry(status: 503, times: 2),
        GatewayScriptEntry(deviceToken: "ab", status: 200, body: "{}", delayMilliseconds: 10),
      ])
  }

  @Test(arguments: [
    (#"{}"#, "script"), (#"[{"status":99}]"#, "script[0].status"),
    (#"[{"status":200,"times":0}]"#, "script[0].times"),
    (#"[{"status":200,"x":1}]"#, "script[0].x"),
    (#"[{"status":200,"device_token":"xyz"}]"#, "script[0].device_token"),
  ])
  func refusesAMalformedScript(json: String, field: String) throws {
    let error = try #require(throws: RelayFixtureError.self) {
      try GatewayScriptEntry.parse(json: Array(json.utf8))
    }
    #expect(error.code == .invalidData)
    #expect(error.field == field)
  }

  @Test func refusesIPv6Loopback() async throws {
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(host: "::1"))
    let error = try await #require(throws: RelayFixtureError.self) { try await gateway.start() }
    #expect(error.code == .ipv4LoopbackOnly)
    #expect(error.message.contains("IPv6"))
  }
}
