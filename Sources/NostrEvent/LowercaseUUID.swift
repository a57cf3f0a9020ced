/// The channel id grammar of NIP-PL's `h_grammar` `uuid-v4-lowercase`:
/// `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`.
///
/// The one implementation of that grammar, here beside `Hex` because every module that reads an
/// `h` tag imports NostrEvent: the resolver routes a message's channel with it, the lease planner
/// and validator check `#h` values with it. The version nibble and the variant are both checked.
package enum LowercaseUUID {
  /// The length of the text form.
  package static let length = 36

  /// Whether `text` is a lowercase UUID version 4 with the RFC 4122 variant.
  package static func isValidV4(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      guard bytes.count == length else { return false }
      for (offset, byte) in bytes.enumerated() {
        switch offset {
        case 8, 13, 18, 23:
          guard byte == UInt8(ascii: "-") else { return false }
        case 14:
          guard byte == UInt8(ascii: "4") else { return false }
        case 19:
          guard "89ab".utf8.contains(byte) else { return false }
        default:
          guard
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
              || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
          else { return false }
        }
      }
      return true
    }
  }
}
