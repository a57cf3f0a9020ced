import NotificationResolver
import Testing

@Suite struct BodyPreviewTests {
  private let preview = BodyPreview(renderMention: { entity in
    entity.hasPrefix("npub1known") ? "alice" : (entity.hasPrefix("npub1bad") ? nil : "npub1abc…wxyz")
  })

  @Test(arguments: [
    ("before\n```swift\nlet x = 1\n```\nafter", "before [code] after"),
    ("open ``` never closed https://x.y", "open [code]"),
    ("use `git push` now", "use git push now"),
    ("inline `https://kept.example` stays", "inline https://kept.example stays"),
    ("see [the docs](https://example.com/a) and ![cat](https://img/c.png)", "see the docs and cat"),
    ("go to https://example.com/path?q=1.", "go to [link]."),
    ("(see http://a.b/c)", "(see [link])"),
    ("HTTPS://EXAMPLE.COM shout", "[link] shout"),
    ("not a link: http:// alone", "not a link: http:// alone"),
    ("hi nostr:npub1known123 !", "hi @alice !"),
    ("hi nostr:nprofile1qqq", "hi @npub1abc…wxyz"),
    ("hi nostr:npub1bad stays", "hi nostr:npub1bad stays"),
    ("[broken](link", "[broken](link"),
  ])
  func flattensMarkdown(input: String, expected: String) {
    #expect(preview.preview(of: input) == expected)
  }

  @Test func removesControlAndBidiCharacters() {
    let input = "a\u{0000}b\u{0007}c\u{202E}d\u{2066}e\u{200F}f\u{007F}g\tline\r\nnext"
    #expect(preview.preview(of: input) == "abcdefg line next")
  }

  @Test func collapsesAndTrimsWhitespace() {
    #expect(preview.preview(of: "  \n hello \u{00A0}\u{2003}  world \n\n ") == "hello world")
  }

  @Test func keepsExactly180GraphemesUncut() {
    let text = String(repeating: "👩‍👩‍👧", count: 180)
    #expect(preview.preview(of: text) == text)
  }

  @Test func cutsLongTextToWholeGraphemesWithEllipsis() {
    let text = String(repeating: "🇫🇷", count: 181)
    let result = preview.preview(of: text)
    #expect(result == String(repeating: "🇫🇷", count: 177) + "…")
    #expect(result.count == 178)
  }

  @Test func trimsBeforeTheEllipsis() {
    let text = String(repeating: "a", count: 176) + " " + String(repeating: "b", count: 10)
    #expect(preview.preview(of: text) == String(repeating: "a", count: 176) + "…")
  }

  @Test func boundsWorkOnHugeContent() {
    let text = String(repeating: "word ", count: 2_000_000)
    let result = preview.preview(of: text)
    #expect(result == String(repeating: "word ", count: 35) + "wo…")
  }

  @Test func ignoresContentPastTheScanLimit() {
    let padding = String(repeating: "x", count: BodyPreview.scanLimitBytes)
    #expect(!preview.preview(of: "```" + padding + "```visible").contains("visible"))
  }

  @Test func returnsEmptyForBlankContent() {
    #expect(preview.preview(of: " \n\t\u{200E} ").isEmpty)
  }
}
