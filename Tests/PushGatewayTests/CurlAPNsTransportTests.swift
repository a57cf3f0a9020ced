import Foundation
import NostrCurlHTTP
import NostrHTTP
import NostrPushTestSupport
import PushGateway
import Testing

@Suite struct CurlAPNsTransportTests {
  @Test func postsToTheDevicePathOverHTTP2AndReadsTheAnswer() async throws {
    try await withAPNsStandIn { standIn in
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let transport = CurlAPNsTransport(client: client, origin: standIn.origin)
      let token = String(repeating: "ab", count: 32)
      let request = APNsRequest(
        deviceToken: token,
        headers: [
          APNsHeaderField("apns-topic", "org.example.app"), APNsHeaderField("apns-push-type", "alert"),
          APNsHeaderField("apns-id", "8E1D6C7A-9A55-4C55-B1A4-6B3C2D1E0F01"),
        ],
        body: Array(#"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1}}"#.utf8))
      let response = try await transport.send(request, deadline: .now + .seconds(10))
      #expect(response.status == 200)
      #expect(response.headers["apns-id"] == "8E1D6C7A-9A55-4C55-B1A4-6B3C2D1E0F01")
      let recorded = try #require(try await standIn.requests().first)
      #expect(recorded.path == "/3/device/" + token)
      #expect(recorded.body == #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1}}"#)
      let apnsFields = recorded.headers.filter { $0.name.hasPrefix("apns-") }.map { "\($0.name)=\($0.value)" }
      #expect(
        apnsFields.sorted() == [
          "apns-id=8E1D6C7A-9A55-4C55-B1A4-6B3C2D1E0F01", "apns-push-type=alert",
          "apns-topic=org.example.app",
        ])
    }
  }

  @Test func passesAnAPNsRefusalThrough() async throws {
    try await withAPNsStandIn { standIn in
      let token = String(repeating: "cd", count: 32)
      try await standIn.script(#"{"\#(token)":{"status":400,"reason":"BadDeviceToken"}}"#)
      let client = try CurlHTTPClient(caFile: standIn.caFile)
      defer { Task { await client.shutdown() } }
      let transport = CurlAPNsTransport(client: client, origin: standIn.origin)
      let response = try await transport.send(
        APNsRequest(deviceToken: token, headers: [], body: Array("{}".utf8)), deadline: .now + .seconds(10))
      #expect(response.status == 400)
      #expect(response.body == Array(#"{"reason":"BadDeviceToken"}"#.utf8))
    }
  }
}
