import NostrJSON
import RelayFixture
import Testing

@Suite(.timeLimit(.minutes(2))) struct InformationDocumentTests {
  @Test func servesTheDocumentForNostrJSONAccept() async throws {
    let document = Array(#"{"name":"fixture","self":"x"}"#.utf8)
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: document))
    let client = HTTPTestClient()
    defer { client.invalidate() }
    let response = try await client.send("GET", origin + "/", headers: ["Accept": "application/nostr+json"])
    await server.stop()
    #expect(response.status == 200)
    #expect(response.header("Content-Type") == "application/nostr+json")
    #expect(response.body == document)
  }

  @Test func answers404WithoutTheNostrAccept() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: Array("{}".utf8)))
    let client = HTTPTestClient()
    defer { client.invalidate() }
    let response = try await client.send("GET", origin + "/", headers: ["Accept": "text/html"])
    await server.stop()
    #expect(response.status == 404)
    #expect(try JSONReader().read(response.body).objectValue?["error"]?.stringValue != nil)
  }

  @Test func refusesOtherMethodsOnTheRoot() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: Array("{}".utf8)))
    let client = HTTPTestClient()
    defer { client.invalidate() }
    let response = try await client.send(
      "DELETE", origin + "/", headers: ["Accept": "application/nostr+json"])
    await server.stop()
    #expect(response.status == 405)
    #expect(response.header("Allow") == "GET")
  }

  @Test func answers404ForAnUnknownPath() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData())
    let client = HTTPTestClient()
    defer { client.invalidate() }
    let response = try await client.send("GET", origin + "/nowhere")
    await server.stop()
    #expect(response.status == 404)
  }
}
