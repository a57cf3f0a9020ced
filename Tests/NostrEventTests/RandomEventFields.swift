import NostrPushTestSupport

/// Seeded random event fields that cover the characters and bounds serialization gets wrong.
struct RandomEventFields {
  var random: SplitMix64

  /// Pieces of text: every escaping class (short escapes, other C0 controls, DEL, C1, line
  /// separators, `/`), one- to four-byte UTF-8, grapheme clusters, noncharacters and bidi controls.
  static let pieces = [
    "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1}", "\u{1F}",
    "\u{7F}", "\u{80}", "\u{85}", "\u{2028}", "\u{2029}", "é", "e\u{301}", "日本", "🦩", "👩‍💻", "🇩🇪",
    "\u{FEFF}", "\u{FFFE}", "\u{FFFF}", "\u{10FFFF}", "\u{202E}", "</script>", "\\u0000", "\\n",
  ]

  /// Values at the edges of the accepted ranges, picked half of the time.
  static let edgeCreatedAts: [Int64] = [0, 1, 1 << 31, 1 << 32, 9_999_999_999, (1 << 53) - 1]
  static let edgeKinds = [0, 1, 9, 40002, 65535]

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  mutating func text(maxPieces: Int) -> String {
    let count = Int.random(in: 0...maxPieces, using: &random)
    return (0..<count).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
  }

  mutating func createdAt() -> Int64 {
    Bool.random(using: &random)
      ? Self.edgeCreatedAts.randomElement(using: &random)!
      : Int64.random(in: 0...((1 << 53) - 1), using: &random)
  }

  mutating func kind() -> Int {
    Bool.random(using: &random)
      ? Self.edgeKinds.randomElement(using: &random)! : Int.random(in: 0...65535, using: &random)
  }

  mutating func tags() -> [[String]] {
    (0..<Int.random(in: 0...6, using: &random)).map { _ in
      (0..<Int.random(in: 0...4, using: &random)).map { _ in text(maxPieces: 6) }
    }
  }
}
