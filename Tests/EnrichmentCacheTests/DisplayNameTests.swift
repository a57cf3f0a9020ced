import Foundation
import NostrEvent
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
