/// Writes a `JSONValue` as compact JSON (no whitespace), members in their stored order.
///
/// Strings use the common NIP-01 escaping rule, so what it writes is valid JSON that every
/// Nostr implementation reads back to the same value.
public enum JSONWriter {
  /// The compact UTF-8 encoding of `value`.
  public static func bytes(_ value: JSONValue) -> [UInt8] {
    var output: [UInt8] = []
    append(value, to: &output)
    return output
  }

  /// The compact encoding of `value` as a string.
  public static func string(_ value: JSONValue) -> String {
    String(decoding: bytes(value), as: UTF8.self)
  }

  /// Appends the compact encoding of `value` to `output`.
  package static func append(_ value: JSONValue, to output: inout [UInt8]) {
    switch value {
    case .null: output.append(contentsOf: "null".utf8)
    case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
    case .integer(let number): output.append(contentsOf: String(number).utf8)
    case .float(let number): output.append(contentsOf: floatText(number).utf8)
    case .string(let text): NostrStringEscaper.appendQuoted(text, to: &output)
    case .array(let elements):
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        append(element, to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      output.append(UInt8(ascii: "{"))
      for (index, member) in object.members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        NostrStringEscaper.appendQuoted(member.key, to: &output)
        output.append(UInt8(ascii: ":"))
        append(member.value, to: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  /// A float written so that it reads back as a float (never as an integer literal).
  private static func floatText(_ number: Double) -> String {
    guard number.isFinite else { return "null" }
    let text = "\(number)"
    return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
  }
}
