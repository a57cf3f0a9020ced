import NostrPushCore
import Testing

/// `UTF8Text`: the deployment-minimum replacement for `String(validating:as:)`.
@Suite struct UTF8TextTests {
  @Test func decodesValidUTF8AndRefusesEveryMalformedShape() {
    #expect(UTF8Text.decode(Array("héllo 🎉".utf8)) == "héllo 🎉")
    #expect(UTF8Text.decode([UInt8]()) == "")
    let malformed: [[UInt8]] = [
      [0x80],  // a lone continuation byte
      [0xC3],  // a truncated two-byte sequence
      [0xE2, 0x82],  // a truncated three-byte sequence
      [0xC0, 0xAF],  // an overlong "/"
      [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
      [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
      [0x61, 0xFF, 0x62],  // a byte UTF-8 never uses
    ]
    for bytes in malformed {
      #expect(UTF8Text.decode(bytes) == nil, "\(bytes)")
      #expect(!UTF8Text.isValid(bytes[...]), "\(bytes)")
    }
    // U+FFFD itself is valid text, not a marker of repair.
    #expect(UTF8Text.decode([0xEF, 0xBF, 0xBD]) == "\u{FFFD}")
  }

  @Test func cutsAtAScalarBoundary() {
    let text = "a€🎉"  // 1 + 3 + 4 bytes
    #expect(UTF8Text.prefix(text, maxBytes: 8) == Array(text.utf8))
    #expect(UTF8Text.prefix(text, maxBytes: 7) == Array("a€".utf8))
    #expect(UTF8Text.prefix(text, maxBytes: 3) == Array("a".utf8))
    #expect(UTF8Text.prefix(text, maxBytes: 0) == [])
  }
}
