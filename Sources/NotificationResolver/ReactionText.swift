/// What a reaction (kind 7, NIP-25) shows: its emoji as text and, for a NIP-30 custom emoji, the
/// image to attach.
///
/// `+` or empty → ❤️, `-` → 👎, a single emoji → itself, `:shortcode:` with a matching `emoji`
/// tag → the shortcode text (with its colons) and the tag's image URL; anything else → the
/// content's first ``maxCharacters`` grapheme clusters, control characters removed and
/// whitespace collapsed. Decision: a `:shortcode:` without a matching tag is "anything else"
/// (its text, cut), and the image URL is used only when the avatar fetcher accepts it (`https`,
/// or `http` to a loopback host).
struct ReactionText: Sendable, Hashable {
  /// The most grapheme clusters of a reaction that is not an emoji.
  static let maxCharacters = 8

  /// The reaction as the title shows it.
  let text: String
  /// The custom emoji's image URL, when the reaction is one.
  let imageURL: String?

  /// Reads the reaction `content` with the event's `tags`.
  init(content: String, tags: [[String]]) {
    switch content {
    case "", "+":
      (text, imageURL) = ("❤️", nil)
    case "-":
      (text, imageURL) = ("👎", nil)
    default:
      if let shortcode = Self.shortcode(content),
        let tag = tags.first(where: { $0.count >= 3 && $0[0] == "emoji" && $0[1] == shortcode }),
        AvatarFetcher.requestURL(for: tag[2]) != nil
      {
        (text, imageURL) = (content, tag[2])
      } else if content.count == 1, let character = content.first, Self.isEmoji(character) {
        (text, imageURL) = (content, nil)
      } else {
        let visible = String(
          String.UnicodeScalarView(
            content.unicodeScalars.filter {
              !($0.value < 0x20 || $0.value == 0x7F || ControlCharacterFilter.isBidiControl($0))
            }))
        let collapsed = visible.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        (text, imageURL) = (String(collapsed.prefix(Self.maxCharacters)), nil)
      }
    }
  }

  /// The shortcode of `:name:` (NIP-30: letters, digits, `_` and `-`), else nil.
  private static func shortcode(_ content: String) -> String? {
    guard content.count > 2, content.hasPrefix(":"), content.hasSuffix(":") else { return nil }
    let name = content.dropFirst().dropLast()
    guard
      name.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
      })
    else { return nil }
    return String(name)
  }

  /// Whether `character` is one emoji (shown as an emoji, not a digit or `#` with emoji variants).
  private static func isEmoji(_ character: Character) -> Bool {
    guard let first = character.unicodeScalars.first else { return false }
    if first.properties.isEmojiPresentation { return true }
    return first.properties.isEmoji && character.unicodeScalars.count > 1 && first.value > 0x7F
  }
}
