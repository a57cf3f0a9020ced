import NostrJSON
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct InformationDocumentTests {
  @Test func servesTheDocumentForNostrJSONAccept() async throws {
    let document = Array(#"{"name":"fixture","self":"x"}"#.utf8)
    try await Scenario.serving(RelayFixtureData(nip11: document)) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send("GET", origin + "/", headers: ["Accept": "application/nostr+json"])
      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/nostr+json")
      #expect(response.body == document)
    }
  }

  @Test func answers404WithoutTheNostrAccept() async throws {
    try await Scenario.serving(RelayFixtureData(nip11: Array("{}".utf8))) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send("GET", origin + "/", headers: ["Accept": "text/html"])
      #expect(response.status == 404)
      #expect(try JSONReader().read(response.body).objectValue?["error"]?.stringValue != nil)
    }
  }

  @Test func refusesOtherMethodsOnTheRoot() async throws {
    try await Scenario.serving(RelayFixtureData(nip11: Array("{}".utf8))) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send(
        "DELETE", origin + "/", headers: ["Accept": "application/nostr+json"])
      #expect(response.status == 405)
      #expect(response.header("Allow") == "GET")
    }
  }

  @Test func answers404ForAnUnknownPath() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send("GET", origin + "/nowhere")
      #expect(response.status == 404)
    }
  }
}
