/// The channel id grammar of `h_grammar` `uuid-v4-lowercase`, shared by the planner and the
/// validator's `#h` rule.
///
/// `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`: the version nibble
/// and the variant are both checked (Buzz's relay checks only the version).
enum ChannelID {
  /// The length of a UUID in its text form.
  static let length = 36

  static func isValid(_ text: String) -> Bool {
    let utf8 = text.utf8
    guard utf8.count == length else { return false }
    for (index, byte) in utf8.enumerated() {
      switch index {
      case 8, 13, 18, 23:
        guard byte == UInt8(ascii: "-") else { return false }
      case 14:
        guard byte == UInt8(ascii: "4") else { return false }
      case 19:
        guard "89ab".utf8.contains(byte) else { return false }
      default:
        guard isLowerHex(byte) else { return false }
      }
    }
    return true
  }

  private static func isLowerHex(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }
}
