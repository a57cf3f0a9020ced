import NostrEvent
import Testing

@Suite struct RelayOriginTests {
  @Test(arguments: [
    ("wss://Relay.Example.COM", "https://relay.example.com"),
    ("WSS://Relay.Example:443/", "https://relay.example"),
    ("WS://relay.example:80/", "http://relay.example"),
    ("https://relay.example:443", "https://relay.example"),
    ("https://relay.example:8443/", "https://relay.example:8443"),
    ("http://127.0.0.1:7777", "http://127.0.0.1:7777"),
    ("ws://relay_1.localhost:7777", "http://relay_1.localhost:7777"),
    ("ws://[0:0:0:0:0:0:0:1]:7777", "http://[::1]:7777"),
    ("ws://[::1]:7777/", "http://[::1]:7777"),
    ("wss://[2001:DB8:0::1]", "https://[2001:db8::1]"),
    ("http://[FE80::1]", "http://[fe80::1]"),
  ])
  func canonicalisesRelayURLs(input: String, expected: String) throws {
    #expect(try RelayOrigin(input).description == expected)
  }

  @Test(arguments: [
    "wss://relay.example/path", "wss://relay.example/?q=1", "wss://user:pw@relay.example",
    "wss://user@relay.example", "ftp://relay.example", "wss://", "wss://relay.example:0",
    "wss://relay.example:99999", "wss://relay.example:12a", "wss://relay.example:", "relay.example",
    "wss://[::1", "wss://[zz::1]", "wss://relay.example#frag", "wss://rel ay.example",
    "wss://-relay.example", "wss://relay..example", "wss://relay.example-",
    "wss://" + String(repeating: "a", count: 64) + ".example",
  ])
  func refusesOtherRelayURLs(input: String) {
    let error = #expect(throws: RelayOriginError.self) { try RelayOrigin(input) }
    #expect(error?.code == .invalidField)
    #expect(error?.field == "relay")
  }

  @Test func givesTheWebSocketFormOfTheSameOrigin() throws {
    #expect(try RelayOrigin("HTTPS://Relay.Example:443").webSocketURL == "wss://relay.example")
    #expect(try RelayOrigin("http://[0::1]:7000").webSocketURL == "ws://[::1]:7000")
  }

  @Test func splitsAnHTTPURLIntoOriginAndRest() throws {
    let parsed = try #require(RelayOrigin.parse("HTTPS://Media.Example:443/a/b.png?x=1"))
    #expect(parsed.origin.description == "https://media.example")
    #expect(parsed.rest == "/a/b.png?x=1")
    #expect(!parsed.webSocket)
    #expect(RelayOrigin.parse("wss://media.example/a")?.webSocket == true)
    #expect(RelayOrigin.parse("https://media.example/a#b") == nil)
  }

  @Test func recognisesLoopbackHosts() throws {
    #expect(try RelayOrigin("http://127.0.0.2:1").isLoopback)
    #expect(try RelayOrigin("http://[::1]:1").isLoopback)
    #expect(try RelayOrigin("http://localhost").isLoopback)
    #expect(try RelayOrigin("ws://relay_1.localhost:1").isLoopback)
    #expect(try !RelayOrigin("http://128.0.0.1").isLoopback)
    #expect(try !RelayOrigin("http://localhost.example").isLoopback)
  }

  /// The same relay spelled two ways is one value, so the cache, NIP-98 and the credential rule
  /// cannot disagree about it.
  @Test func comparesSpellingsOfOneRelayAsEqual() throws {
    #expect(try RelayOrigin("wss://Relay.Example:443") == RelayOrigin("https://relay.example"))
    #expect(try RelayOrigin("ws://[0:0::1]:80") == RelayOrigin("http://[::1]"))
    #expect(try RelayOrigin("wss://relay.example") != RelayOrigin("ws://relay.example"))
  }
}
