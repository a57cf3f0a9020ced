/// The notification body: a message's content reduced to a short, plain, safe line of text.
///
/// Markdown that would look like noise in a notification is turned into words (`[code]`,
/// `[link]`, link labels, `@name` mentions), controls that could reorder or hide text are removed,
/// and the result is cut to ``maxCharacters`` grapheme clusters so it fits a lock-screen banner.
package struct BodyPreview: Sendable {
  /// The longest body, in grapheme clusters, shown without cutting.
  package static let maxCharacters = 180
  /// How many grapheme clusters a cut body keeps before the ellipsis.
  package static let keptCharacters = 177
  /// How many UTF-8 bytes of the content are looked at; the rest is ignored.
  ///
  /// A preview needs a few hundred characters at most, so a multi-megabyte message (or a message
  /// that is one giant code block) costs the same small, bounded amount of work as a short one.
  package static let scanLimitBytes = 16 * 1024

  /// Turns a mention's bech32 entity (`npub1…` or `nprofile1…`) into the text shown after `@`,
  /// or nil when the entity is not a valid profile reference (the text is then kept as written).
  package typealias MentionRenderer = @Sendable (String) -> String?

  private let renderMention: MentionRenderer
  private let strings: NotificationStrings

  /// Creates a preview builder that renders `nostr:` profile mentions with `renderMention`, and
  /// code, links and mentions in the words of `strings`.
  ///
  /// Pass a renderer that looks names up in the enrichment cache and falls back to the compact npub.
  package init(renderMention: @escaping MentionRenderer, strings: NotificationStrings = .english) {
    self.renderMention = renderMention
    self.strings = strings
  }

  /// The preview of `content`.
  ///
  /// Call it with the verified message's content; the result is never longer than
  /// ``maxCharacters`` grapheme clusters.
  package func preview(of content: String) -> String {
    let bounded = Self.prefix(of: content, maxBytes: Self.scanLimitBytes)
    let cleaned = ControlCharacterFilter.clean(bounded)
    let plain = MarkdownFlattener(renderMention: renderMention, strings: strings).flatten(cleaned)
    let collapsed = Self.collapseWhitespace(plain)
    return Self.truncate(collapsed)
  }

  /// The longest prefix of `text` that is at most `maxBytes` UTF-8 bytes and ends on a grapheme
  /// cluster boundary.
  static func prefix(of text: String, maxBytes: Int) -> Substring {
    guard text.utf8.count > maxBytes else { return text[...] }
    let byteLimit = text.utf8.index(text.utf8.startIndex, offsetBy: maxBytes)
    var end = text.startIndex
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(after: index)
      if next > byteLimit { break }
      end = next
      index = next
    }
    return text[..<end]
  }

  /// Every run of whitespace becomes one space; leading and trailing whitespace is dropped.
  ///
  /// The work is done on Unicode scalars, not grapheme clusters: a separator such as U+2029 is a
  /// cluster of its own, and the joiner or combining mark that follows it would otherwise attach
  /// to the collapsed space and leave a space-plus-joiner cluster in the preview. A mark, joiner
  /// or variation selector that would combine with the space it follows has nothing left to
  /// modify, so it is dropped; so is a prepended mark (such as U+0600) that a space would join,
  /// since it has no number left to stand before.
  static func collapseWhitespace(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    var pendingSpace = false
    var followsWhitespace = true
    for scalar in text.unicodeScalars {
      if scalar.properties.isWhitespace {
        pendingSpace = !result.isEmpty
        followsWhitespace = true
        continue
      }
      if followsWhitespace && extendsPrecedingSpace(scalar) { continue }
      if pendingSpace {
        while let last = result.last, joinsFollowingSpace(last) { result.removeLast() }
        if let last = result.last, last != " " { result.append(" ") }
      }
      pendingSpace = false
      followsWhitespace = false
      result.append(scalar)
    }
    return String(result)
  }

  /// Whether `scalar` would join a space before it into one grapheme cluster (a combining mark,
  /// a zero-width joiner, a variation selector, an emoji modifier, a spacing mark).
  static func extendsPrecedingSpace(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII { return false }
    var probe = String.UnicodeScalarView()
    probe.append(" ")
    probe.append(scalar)
    return String(probe).count == 1
  }

  /// Whether a space after `scalar` would join it into one grapheme cluster (a prepended mark).
  static func joinsFollowingSpace(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII { return false }
    var probe = String.UnicodeScalarView()
    probe.append(scalar)
    probe.append(" ")
    return String(probe).count == 1
  }

  /// Cuts `text` to ``keptCharacters`` grapheme clusters plus `…` when it is longer than
  /// ``maxCharacters``.
  static func truncate(_ text: String) -> String {
    guard text.count > maxCharacters else { return text }
    var kept = String(text.prefix(keptCharacters)).unicodeScalars
    while let last = kept.last, last.properties.isWhitespace { kept.removeLast() }
    return String(kept) + "\u{2026}"
  }
}
