import NostrJSON
import Testing

@testable import NostrEvent

@Suite struct CanonicalSerializationTests {
  /// The common rule written out byte by byte, to check the word-at-a-time escaper against.
  static func reference(_ text: String) -> [UInt8] {
    var output: [UInt8] = [0x22]
    for byte in text.utf8 {
      switch byte {
      case 0x22: output += Array(#"\""#.utf8)
      case 0x5C: output += Array(#"\\"#.utf8)
      case 0x0A: output += Array(#"\n"#.utf8)
      case 0x0D: output += Array(#"\r"#.utf8)
      case 0x09: output += Array(#"\t"#.utf8)
      case 0x08: output += Array(#"\b"#.utf8)
      case 0x0C: output += Array(#"\f"#.utf8)
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        output += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
      default: output.append(byte)
      }
    }
    return output + [0x22]
  }

  static let specialBytes: [UInt8] = Array(0..<0x20) + [0x22, 0x5C, 0x2F, 0x7F]

  @Test(arguments: specialBytes)
  func escapesASpecialByteAtEveryPositionOfAWord(_ special: UInt8) {
    for length in [1, 7, 8, 9, 16, 17] {
      for position in 0..<length {
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
        bytes[position] = special
        let text = String(decoding: bytes, as: UTF8.self)
        var output: [UInt8] = []
        NostrStringEscaper.appendQuoted(text, to: &output)
        #expect(output == Self.reference(text), "byte \(special) at \(position) of \(length)")
        let parsed = try? JSONReader().read(output)
        #expect(parsed == .string(text))
      }
    }
  }

  @Test func serializesTheNIP01Array() throws {
    let event = try Event(
      json: #"""
        {"id":"\#(String(repeating: "a", count: 64))","pubkey":"\#(String(repeating: "b", count: 64))",
        "created_at":0,"kind":65535,"tags":[["e","x\ny"],[]],"content":"é/\u2028\u007f\"",
        "sig":"\#(String(repeating: "c", count: 128))"}
        """#)
    let expected =
      "[0,\"\(String(repeating: "b", count: 64))\",0,65535,[[\"e\",\"x\\ny\"],[]],\"é/\u{2028}\u{7f}\\\"\"]"
    #expect(event.canonicalBytes() == Array(expected.utf8))
  }
}
