import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import Testing

@testable import PushGateway

/// One row of the answer table: what APNs answers, what the relay gets, and whether the
/// `request_id` is kept (a replay is answered again without APNs) or released (a retry goes to
/// APNs again).
struct AnswerRow: Sendable, CustomTestStringConvertible {
  var name: String
  var apns: RecordingAPNsTransport.Answer
  var status: Int
  var body: String
  var kept: Bool

  var testDescription: String { name }

  static let all: [AnswerRow] = [
    AnswerRow(
      name: "200", apns: .response(APNsResponse(status: 200)), status: 200, body: #"{"status":"accepted"}"#,
      kept: true),
    AnswerRow(
      name: "410 Unregistered with timestamp",
      apns: .response(
        APNsResponse(status: 410, body: Array(#"{"reason":"Unregistered","timestamp":1767226100123}"#.utf8))),
      status: 410, body: #"{"status":"invalid_endpoint","generation":1,"invalid_at":1767226100}"#, kept: true),
    AnswerRow(
      name: "410 ExpiredToken without timestamp",
      apns: .response(APNsResponse(status: 410, body: Array(#"{"reason":"ExpiredToken"}"#.utf8))),
      status: 410,
      body: #"{"status":"invalid_endpoint","generation":1,"invalid_at":null}"#, kept: true),
    AnswerRow(
      name: "400 BadDeviceToken",
      apns: .response(APNsResponse(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))),
      status: 503,
      body: #"{"error":"configuration_fault"}"#, kept: false),
    AnswerRow(
      name: "400 DeviceTokenNotForTopic",
      apns: .response(APNsResponse(status: 400, body: Array(#"{"reason":"DeviceTokenNotForTopic"}"#.utf8))),
      status: 503, body: #"{"error":"configuration_fault"}"#, kept: false),
    AnswerRow(
      name: "400 TopicDisallowed",
      apns: .response(APNsResponse(status: 400, body: Array(#"{"reason":"TopicDisallowed"}"#.utf8))),
      status: 503,
      body: #"{"error":"configuration_fault"}"#, kept: false),
    AnswerRow(
      name: "403 InvalidProviderToken",
      apns: .response(APNsResponse(status: 403, body: Array(#"{"reason":"InvalidProviderToken"}"#.utf8))),
      status: 503, body: #"{"error":"configuration_fault"}"#, kept: false),
    AnswerRow(
      name: "429 TooManyProviderTokenUpdates",
      apns: .response(
        APNsResponse(status: 429, body: Array(#"{"reason":"TooManyProviderTokenUpdates"}"#.utf8))),
      status: 503, body: #"{"error":"configuration_fault"}"#, kept: false),
    AnswerRow(
      name: "429 TooManyRequests with retry-after",
      apns: .response(
        APNsResponse(
          status: 429, headers: ["retry-after": "7"], body: Array(#"{"reason":"TooManyRequests"}"#.utf8))),
      status: 503, body: #"{"status":"retry","retry_after_seconds":7}"#, kept: false),
    AnswerRow(
      name: "500 InternalServerError",
      apns: .response(APNsResponse(status: 500, body: Array(#"{"reason":"InternalServerError"}"#.utf8))),
      status: 503, body: #"{"status":"retry","retry_after_seconds":null}"#, kept: false),
    AnswerRow(
      name: "503 ServiceUnavailable",
      apns: .response(APNsResponse(status: 503, body: Array(#"{"reason":"ServiceUnavailable"}"#.utf8))),
      status: 503, body: #"{"status":"retry","retry_after_seconds":null}"#, kept: false),
    AnswerRow(
      name: "timeout", apns: .failure(HTTPTransportError(code: .timeout, message: "no answer")), status: 503,
      body: #"{"status":"retry","retry_after_seconds":null}"#, kept: false),
    AnswerRow(
      name: "reset", apns: .failure(HTTPTransportError(code: .unreachable, message: "reset")), status: 503,
      body: #"{"status":"retry","retry_after_seconds":null}"#, kept: false),
    AnswerRow(
      name: "400 BadExpirationDate (other 4xx)",
      apns: .response(APNsResponse(status: 400, body: Array(#"{"reason":"BadExpirationDate"}"#.utf8))),
      status: 400,
      body: #"{"error":"invalid_request"}"#, kept: true),
    AnswerRow(
      name: "413 PayloadTooLarge (other 4xx)",
      apns: .response(APNsResponse(status: 413, body: Array(#"{"reason":"PayloadTooLarge"}"#.utf8))),
      status: 400,
      body: #"{"error":"invalid_request"}"#, kept: true),
  ]
}

@Suite struct GatewayAnswerTableTests {
  @Test(arguments: AnswerRow.all)
  func answersTheRelayAsTheTableSaysAndKeepsOrReleasesTheRequestID(_ row: AnswerRow) async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let token = testToken(300)
      let (grant, _) = try await harness.grant(owner: owner, relay: relay, token: token)
      harness.recording.script(token, row.apns)
      let requestID = freshRequestID()
      let answer = try await harness.deliver(grant, relay: relay, requestID: requestID)
      #expect(answer.status == row.status)
      #expect(answer.body == row.body)
      #expect(harness.recording.requests.count == 1)
      // The relay's retry of the same request_id (a fresh NIP-98 event).
      let again = try await harness.deliver(grant, relay: relay, requestID: requestID)
      if row.kept {
        #expect(again.status == row.status)
        #expect(again.body == row.body)
        #expect(harness.recording.requests.count == 1)
      } else {
        #expect(again.status == 200)
        #expect(harness.recording.requests.count == 2)
      }
    }
  }

  @Test(arguments: GatewayStoreBackend.available)
  func sendsNoAPNsRequestAfterA410UntilTheEndpointRotates(_ backend: GatewayStoreBackend) async throws {
    try await withGatewayHarness(backend: backend) { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let token = testToken(301)
      let (grant, handle) = try await harness.grant(owner: owner, relay: relay, token: token)
      harness.recording.script(
        token,
        .response(
          APNsResponse(status: 410, body: Array(#"{"reason":"Unregistered","timestamp":1767226000000}"#.utf8))
        ))
      #expect(try await harness.deliver(grant, relay: relay).status == 410)
      for _ in 0..<3 {
        let answer = try await harness.deliver(grant, relay: relay)
        #expect(answer.status == 410)
        #expect(answer.body == #"{"status":"invalid_endpoint","generation":1,"invalid_at":1767226000}"#)
      }
      #expect(harness.recording.requests.count == 1)
      // Rotation: a new epoch, the old grant dead, a new delegation sends again.
      let newToken = testToken(302)
      let rotated = try await harness.post(
        "/v1/installations/endpoint",
        #"{"v":1,"installation_handle":"\#(handle)","endpoint":"\#(newToken)"}"#,
        key: owner)
      #expect(rotated.status == 200)
      #expect(rotated.body == #"{"endpoint_epoch":2}"#)
      let old = try await harness.deliver(grant, relay: relay)
      #expect(old.status == 404)
      #expect(old.body == #"{"error":"invalid_grant"}"#)
      let fresh = try await harness.delegate(owner, handle: handle, relay: relay.publicKeyHex)
      let newGrant = try #require(fresh.object?["endpoint_grant"]?.stringValue)
      #expect(try await harness.deliver(newGrant, relay: relay).status == 200)
      #expect(harness.recording.requests.map(\.deviceToken) == [token, newToken])
    }
  }

  @Test func sendsTheExactAPNsRequest() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let token = testToken(303)
      let (grant, _) = try await harness.grant(owner: owner, relay: relay, token: token)
      let requestID = freshRequestID()
      let expiresAt = harness.now + 600
      #expect(
        try await harness.deliver(grant, relay: relay, requestID: requestID, expiresAt: expiresAt).status
          == 200)
      let sent = try #require(harness.recording.requests.first)
      #expect(sent.path == "/3/device/" + token)
      #expect(
        sent.headers == [
          APNsHeaderField("apns-topic", "org.example.chat"), APNsHeaderField("apns-push-type", "alert"),
          APNsHeaderField("apns-priority", "10"), APNsHeaderField("apns-expiration", String(expiresAt)),
          APNsHeaderField("apns-id", requestID),
        ])
      #expect(
        String(decoding: sent.body, as: UTF8.self)
          == #"{"aps":{"alert":{"title":"Chat","body":"New activity"},"mutable-content":1}}"#)
    }
  }

  @Test func refusesAnotherSignerAnExpiredWakeAndAReplayedHeader() async throws {
    try await withGatewayHarness { harness in
      let owner = SecretKey.generate()
      let relay = SecretKey.generate()
      let (grant, _) = try await harness.grant(owner: owner, relay: relay, token: testToken(304))
      let other = try await harness.deliver(grant, relay: SecretKey.generate())
      #expect(other.status == 404)
      #expect(other.body == #"{"error":"invalid_grant"}"#)
      #expect(try await harness.deliver(grant, relay: relay, expiresAt: harness.now - 1).status == 404)
      #expect(
        try await harness.deliver(grant, relay: relay, expiresAt: harness.now + 8 * 86_400).status == 404)
      let body = Array(
        #"{"v":1,"endpoint_grant":"\#(grant)","request_id":"\#(freshRequestID())","expires_at":\#(harness.now + 60)}"#
          .utf8)
      let header = try NIP98.authorizationHeader(
        url: harness.baseURL + PushGateway.deliveryPath, method: "POST", body: body, key: relay,
        now: harness.now)
      let text = String(decoding: body, as: UTF8.self)
      #expect(
        try await harness.post(PushGateway.deliveryPath, text, key: relay, header: header).status == 200)
      let replayed = try await harness.post(PushGateway.deliveryPath, text, key: relay, header: header)
      #expect(replayed.status == 401)
      #expect(harness.recording.requests.count == 1)
      #expect(harness.recording.requests.isEmpty == false)
    }
  }

  @Test func refusesABodyNotInTheRelaysExactForm() async throws {
    try await withGatewayHarness { harness in
      let relay = SecretKey.generate()
      let id = freshRequestID()
      for body in [
        #"{"v":1,"endpoint_grant":"g1.x.y","expires_at":1,"request_id":"\#(id)"}"#,
        #"{"v":1,"endpoint_grant":"g1.x.y","request_id":"\#(id.uppercased())","expires_at":1}"#,
        #"{"v":1, "endpoint_grant":"g1.x.y","request_id":"\#(id)","expires_at":1}"#,
      ] {
        let answer = try await harness.post(PushGateway.deliveryPath, body, key: relay)
        #expect(answer.status == 400)
        #expect(answer.body == #"{"error":"invalid_request"}"#)
      }
    }
  }
}
