import NostrJSON

/// Writes a `JSONValue` with two-space indentation, for the data files people read.
enum PrettyJSON {
  /// The indented UTF-8 text of `value`, ending with a newline.
  static func bytes(_ value: JSONValue) -> [UInt8] {
    var output: [UInt8] = []
    append(value, indent: 0, to: &output)
    output.append(0x0A)
    return output
  }

  private static func append(_ value: JSONValue, indent: Int, to output: inout [UInt8]) {
    let inner = [UInt8](repeating: 0x20, count: (indent + 1) * 2)
    let outer = [UInt8](repeating: 0x20, count: indent * 2)
    switch value {
    case .array(let elements) where !elements.isEmpty && elements.contains(where: isContainer):
      output += Array("[\n".utf8)
      for (index, element) in elements.enumerated() {
        output += inner
        append(element, indent: indent + 1, to: &output)
        output += Array((index + 1 < elements.count ? ",\n" : "\n").utf8)
      }
      output += outer + [UInt8(ascii: "]")]
    case .object(let object) where !object.members.isEmpty:
      output += Array("{\n".utf8)
      for (index, member) in object.members.enumerated() {
        output += inner
        NostrStringEscaper.appendQuoted(member.key, to: &output)
        output += Array(": ".utf8)
        append(member.value, indent: indent + 1, to: &output)
        output += Array((index + 1 < object.members.count ? ",\n" : "\n").utf8)
      }
      output += outer + [UInt8(ascii: "}")]
    default:
      JSONWriter.append(value, to: &output)
    }
  }

  private static func isContainer(_ value: JSONValue) -> Bool {
    switch value {
    case .array, .object: true
    default: false
    }
  }
}
