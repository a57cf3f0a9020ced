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

  @Test(arguments: specialBytes)
  func writesThroughAPointerWhatAppendWrites(_ special: UInt8) {
    for rule in [NostrStringEscaper.Rule.common, .literal] {
      for length in [1, 7, 8, 9, 16, 17] {
        for position in 0..<length {
          var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
          bytes[position] = special
          let text = String(decoding: bytes, as: UTF8.self)
          var appended: [UInt8] = []
          NostrStringEscaper.appendQuoted(text, rule: rule, to: &appended)
          let written = bytes.withUnsafeBytes { utf8 in
            let count = NostrStringEscaper.quotedCount(utf8, rule: rule)
            return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
              initialized = NostrStringEscaper.writeQuoted(
                utf8, rule: rule, to: UnsafeMutableRawPointer(output.baseAddress!))
              #expect(initialized == count)
            }
          }
          #expect(written == appended, "\(rule) byte \(special) at \(position) of \(length)")
        }
      }
    }
  }

  @Test func sizesTheSerializationExactlyAndHashesItInOneBuffer() throws {
    let tags = [["e", "x\ny\u{01}"], [], ["p", String(repeating: "q", count: 70_000)]]
    for rule in [NostrStringEscaper.Rule.common, .literal] {
      for content in ["", "plain", "\u{00}\"\\\u{1F}🎉", String(repeating: "\n", count: 20_000)] {
        let count = CanonicalSerializer.byteCount(
          pubkey: "b", createdAt: 1_234_567, kind: 0, tags: tags, content: content, rule: rule)
        let bytes = CanonicalSerializer.bytes(
          pubkey: "b", createdAt: 1_234_567, kind: 0, tags: tags, content: content, rule: rule)
        #expect(bytes.count == count)
        var expected: [UInt8] = Array("[0,\"b\",1234567,0,[".utf8)
        for (index, tag) in tags.enumerated() {
          if index > 0 { expected.append(UInt8(ascii: ",")) }
          expected.append(UInt8(ascii: "["))
          for (position, value) in tag.enumerated() {
            if position > 0 { expected.append(UInt8(ascii: ",")) }
            NostrStringEscaper.appendQuoted(value, rule: rule, to: &expected)
          }
          expected.append(UInt8(ascii: "]"))
        }
        expected += Array("],".utf8)
        NostrStringEscaper.appendQuoted(content, rule: rule, to: &expected)
        expected.append(UInt8(ascii: "]"))
        #expect(bytes == expected)
        let id = CanonicalSerializer.id(
          pubkey: "b", createdAt: 1_234_567, kind: 0, tags: tags, content: content, rule: rule)
        #expect(id == NostrSHA256.hash(expected))
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
