import Foundation
import Testing

@testable import EnrichmentCache

@Suite struct DisplayNameTests {
  @Test(
    arguments: [
      ("  Alice  ", "Alice"),
      ("Alice\n\t  Smith", "Alice Smith"),
      ("A\u{0007}li\u{0000}ce", "Alice"),
      ("\u{202E}evil\u{202C} name\u{2066}", "evil name"),
      ("\u{200F}\u{061C}Bob\u{200E}", "Bob"),
      ("Cafe\u{0301}", "Caf\u{00E9}"),
      ("   ", nil),
      ("\u{0007}\u{202E}", nil),
      ("x\u{00A0}\u{2003}y", "x y"),
    ] as [(String, String?)])
  func sanitizes(raw: String, expected: String?) {
    #expect(DisplayName.sanitize(raw) == expected)
  }

  @Test func cutsAtOneHundredTwentyEightCharacters() {
    let name = DisplayName.sanitize(String(repeating: "ab", count: 100))
    #expect(name?.count == 128)
  }

  @Test func cutsAtFiveHundredTwelveBytesOnAGraphemeBoundary() {
    // Each family emoji is one grapheme of 25 UTF-8 bytes; 20 of them make 500 bytes.
    let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
    #expect(family.utf8.count == 25)
    let name = DisplayName.sanitize(String(repeating: family, count: 30))
    #expect(name?.count == 20)
    #expect(name?.utf8.count == 500)
    #expect(name?.allSatisfy { $0 == Character(family) } == true)
  }

  @Test func trimsASpaceLeftAtTheCut() {
    let raw = String(repeating: "a", count: 127) + " bcd"
    #expect(DisplayName.sanitize(raw) == String(repeating: "a", count: 127))
  }

  @Test func prefersDisplayNameThenName() {
    #expect(DisplayName.fromProfile(displayName: "Display", name: "name") == "Display")
    #expect(DisplayName.fromProfile(displayName: " \n ", name: "name") == "name")
    #expect(DisplayName.fromProfile(displayName: nil, name: " name ") == "name")
    #expect(DisplayName.fromProfile(displayName: nil, name: nil) == nil)
  }
}

@Suite struct RelayOriginTests {
  @Test(arguments: [
    ("wss://relay.example", "https://relay.example"),
    ("WSS://Relay.Example:443/", "https://relay.example"),
    ("ws://relay.example:80", "http://relay.example"),
    ("https://relay.example:8443", "https://relay.example:8443"),
    ("http://127.0.0.1:7777", "http://127.0.0.1:7777"),
    ("ws://[::1]:7777/", "http://[::1]:7777"),
    ("http://[FE80::1]", "http://[fe80::1]"),
  ])
  func canonicalizes(url: String, expected: String) throws {
    #expect(try RelayOrigin(url).string == expected)
  }

  @Test(arguments: [
    "relay.example", "ftp://relay.example", "wss://relay.example/path", "wss://user@relay.example",
    "wss://relay.example?x=1", "wss://relay.example:0", "wss://relay.example:99999", "wss://", "wss://[::1",
    "wss://relay example",
  ])
  func refuses(url: String) throws {
    let error = try #require(throws: CacheError.self) { try RelayOrigin(url) }
    #expect(error.code == .invalidField)
    #expect(error.field == "relay")
  }
}
