import NostrJSON

/// Writes the NIP-01 serialization `[0,"<pubkey>",<created_at>,<kind>,<tags>,"<content>"]`
/// whose SHA-256 is an event's id.
enum CanonicalSerializer {
  /// The serialization under `rule`.
  static func bytes(
    pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String,
    rule: NostrStringEscaper.Rule
  ) -> [UInt8] {
    var output: [UInt8] = []
    var estimate = content.utf8.count + 100
    for tag in tags {
      estimate += 3
      for value in tag { estimate += value.utf8.count + 3 }
    }
    output.reserveCapacity(estimate + estimate / 16)
    output.append(contentsOf: "[0,\"".utf8)
    output.append(contentsOf: pubkey.utf8)
    output.append(contentsOf: "\",".utf8)
    appendInteger(createdAt, to: &output)
    output.append(UInt8(ascii: ","))
    appendInteger(Int64(kind), to: &output)
    output.append(contentsOf: ",[".utf8)
    for (tagIndex, tag) in tags.enumerated() {
      if tagIndex > 0 { output.append(UInt8(ascii: ",")) }
      output.append(UInt8(ascii: "["))
      for (valueIndex, value) in tag.enumerated() {
        if valueIndex > 0 { output.append(UInt8(ascii: ",")) }
        NostrStringEscaper.appendQuoted(value, rule: rule, to: &output)
      }
      output.append(UInt8(ascii: "]"))
    }
    output.append(contentsOf: "],".utf8)
    NostrStringEscaper.appendQuoted(content, rule: rule, to: &output)
    output.append(UInt8(ascii: "]"))
    return output
  }

  /// The id bytes (SHA-256 of the serialization) under `rule`.
  static func id(
    pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String,
    rule: NostrStringEscaper.Rule
  ) -> [UInt8] {
    let serialized = bytes(
      pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule)
    return serialized.withUnsafeBytes { SHA256.hash(buffer: $0) }
  }

  private static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
    if value < 0 { output.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
    }
  }
}
