import NotificationResolver
import Testing

@Suite struct HTTPOriginTests {
  @Test(arguments: [
    ("wss://Relay.Example.COM", "https://relay.example.com"),
    ("WS://relay.example:80/", "http://relay.example"),
    ("https://relay.example:443", "https://relay.example"),
    ("https://relay.example:8443/", "https://relay.example:8443"),
    ("http://127.0.0.1:7777", "http://127.0.0.1:7777"),
    ("ws://[0:0:0:0:0:0:0:1]:7777", "http://[::1]:7777"),
    ("wss://[2001:DB8::1]", "https://[2001:db8::1]"),
  ])
  func canonicalisesRelayURLs(input: String, expected: String) throws {
    #expect(try HTTPOrigin(relayURL: input).description == expected)
  }

  @Test(arguments: [
    "wss://relay.example/path", "wss://relay.example/?q=1", "wss://user:pw@relay.example",
    "ftp://relay.example",
    "wss://", "wss://relay.example:0", "wss://relay.example:99999", "wss://relay.example:12a",
    "relay.example",
    "wss://[::1", "wss://[zz::1]", "wss://relay.example#frag", "wss://rel ay.example",
  ])
  func refusesOtherRelayURLs(input: String) {
    #expect(throws: ResolverError(.invalidURL, field: "relay", "")) { try HTTPOrigin(relayURL: input) }
  }

  @Test func splitsAnHTTPURLIntoOriginAndRest() throws {
    let parsed = try #require(HTTPOrigin.parseHTTPURL("HTTPS://Media.Example:443/a/b.png?x=1"))
    #expect(parsed.origin.description == "https://media.example")
    #expect(parsed.rest == "/a/b.png?x=1")
    #expect(HTTPOrigin.parseHTTPURL("wss://media.example/a") == nil)
  }

  @Test func recognisesLoopbackHosts() throws {
    #expect(try HTTPOrigin(relayURL: "http://127.0.0.2:1").isLoopback)
    #expect(try HTTPOrigin(relayURL: "http://[::1]:1").isLoopback)
    #expect(try HTTPOrigin(relayURL: "http://localhost").isLoopback)
    #expect(try !HTTPOrigin(relayURL: "http://128.0.0.1").isLoopback)
  }
}
