import Foundation
import NostrPushTestSupport
import NotificationResolver
import Testing

/// Inputs the `preview` fuzz harness found (kept in `Fuzz/Regressions/preview/`), replayed the
/// way the harness reads them, plus the smallest cases that show each defect.
@Suite struct FuzzRegressionTests {
  /// The mention renderers the harness picks from with the input's first byte.
  private static let mentionNames: [String?] = [
    nil, "alice", String(repeating: "👩‍💻", count: 128), "", "Bob  van\tDam",
  ]

  private static func regressionInputs() throws -> [(name: String, bytes: [UInt8])] {
    let folder = PackageRoot.appending("Fuzz/Regressions/preview")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    return try names.map { name in
      (name, [UInt8](try Data(contentsOf: folder.appendingPathComponent(name))))
    }
  }

  /// Whether every grapheme cluster holding a whitespace scalar is exactly one plain space: no
  /// joiner or mark is left hanging on a collapsed separator.
  private static func spacesStandAlone(_ text: String) -> Bool {
    text.allSatisfy { character in
      character == " " || !character.unicodeScalars.contains { $0.properties.isWhitespace }
    }
  }

  @Test func keptHarnessInputsGivePlainSpaces() throws {
    let inputs = try Self.regressionInputs()
    #expect(!inputs.isEmpty)
    for input in inputs {
      let name = Self.mentionNames[Int(input.bytes[0]) % Self.mentionNames.count]
      let content = String(decoding: input.bytes.dropFirst(), as: UTF8.self)
      let body = BodyPreview(renderMention: { _ in name }).preview(of: content)
      #expect(Self.spacesStandAlone(body), "\(input.name): \(body.debugDescription)")
      let scalars = Array(body.unicodeScalars)
      #expect(!zip(scalars, scalars.dropFirst()).contains { $0 == " " && $1 == " " }, "\(input.name)")
      #expect(body.count <= BodyPreview.maxCharacters, "\(input.name)")
      #expect(body.unicodeScalars.first?.properties.isWhitespace != true, "\(input.name)")
      #expect(body.unicodeScalars.last?.properties.isWhitespace != true, "\(input.name)")
    }
  }

  @Test(arguments: [
    ("👩\u{2029}\u{200D}💻", "👩 💻"),
    ("a \u{0301}b", "a b"),
    ("a\u{3000}\u{FE0F}\u{1F3FD}b", "a b"),
    ("\u{2029}\u{200D}start", "start"),
    ("e\u{0301} kept", "e\u{0301} kept"),
    ("👩\u{200D}💻 kept", "👩\u{200D}💻 kept"),
  ])
  func dropsMarksLeftOnACollapsedSeparator(input: String, expected: String) {
    let body = BodyPreview(renderMention: { _ in nil }).preview(of: input)
    #expect(body == expected)
    #expect(Self.spacesStandAlone(body))
  }

  @Test(arguments: [
    ("x\u{0600} y", "x y"),
    ("\u{0600}\u{0600} y", "y"),
    ("\u{0600}12 kept", "\u{0600}12 kept"),
    ("t\u{070F} \u{070F} x", "t x"),
  ])
  func dropsAPrependedMarkASpaceWouldJoin(input: String, expected: String) {
    let body = BodyPreview(renderMention: { _ in nil }).preview(of: input)
    #expect(body == expected)
    #expect(Self.spacesStandAlone(body))
  }

  @Test func cutDoesNotEndOnASpaceJoinedToThePreviousCluster() {
    // U+0600 (Arabic number sign) is a prepended mark: a space after it would join its cluster,
    // and trimming whole clusters would then leave that space before the ellipsis.
    let text = String(repeating: "a", count: 176) + "\u{0600} " + String(repeating: "b", count: 10)
    let body = BodyPreview(renderMention: { _ in nil }).preview(of: text)
    #expect(body == String(repeating: "a", count: 176) + "\u{2026}")
  }
}
