/// Writes strings the way NIP-01 ids are computed.
///
/// The common rule (nostr-tools, go-nostr, rust-nostr, and every id in the public vectors):
/// `"` `\` and the five short escapes (`\n` `\r` `\t` `\b` `\f`); every other U+0000–U+001F as
/// `\u00xx` with lowercase hex; everything else — `/`, U+007F, U+2028, U+2029, all non-ASCII —
/// verbatim as UTF-8. The literal rule reads NIP-01 word for word and writes those other control
/// characters as raw bytes (nostrdb does); ids computed that way are accepted for compatibility.
public enum NostrStringEscaper {
  /// Which escaping rule to apply.
  public enum Rule: String, Sendable, Hashable {
    /// The de-facto rule that every major implementation follows (always valid JSON).
    case common
    /// NIP-01 read literally: control characters without a short escape stay raw bytes.
    case literal
  }

  /// Appends `string` as a quoted, escaped JSON string to `output`.
  public static func appendQuoted(_ string: String, rule: Rule = .common, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { utf8 in
      guard let base = utf8.baseAddress else { return }
      var runStart = 0
      var index = 0
      while index < utf8.count {
        index = ByteScan.skipOrdinary(UnsafeRawPointer(base), from: index, to: utf8.count)
        guard index < utf8.count else { break }
        let byte = utf8[index]
        index += 1
        guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
        if rule == .literal, byte < 0x20, shortEscape(byte) == nil { continue }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<(index - 1)]))
        appendEscape(of: byte, to: &output)
        runStart = index
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }
    output.append(UInt8(ascii: "\""))
  }

  /// `string` as a quoted, escaped JSON string.
  public static func quoted(_ string: String, rule: Rule = .common) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(string.utf8.count + 2)
    appendQuoted(string, rule: rule, to: &output)
    return String(decoding: output, as: UTF8.self)
  }

  /// Whether `string` holds a character the two rules write differently.
  public static func rulesDiffer(for string: String) -> Bool {
    string.utf8.contains { $0 < 0x20 && shortEscape($0) == nil }
  }

  private static func shortEscape(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x0A: UInt8(ascii: "n")
    case 0x0D: UInt8(ascii: "r")
    case 0x09: UInt8(ascii: "t")
    case 0x08: UInt8(ascii: "b")
    case 0x0C: UInt8(ascii: "f")
    case 0x22: UInt8(ascii: "\"")
    case 0x5C: UInt8(ascii: "\\")
    default: nil
    }
  }

  private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\\"))
    if let letter = shortEscape(byte) {
      output.append(letter)
      return
    }
    let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
    output.append(hexDigits[Int(byte >> 4)])
    output.append(hexDigits[Int(byte & 0x0F)])
  }
}
