import Foundation
import NostrEvent
import NostrPushTestSupport
import Testing

/// `EventKind` is the one owner of kind numbers: its table is consistent, and no file under
/// `Sources/` but `EventKind.swift` writes a kind as a number.
@Suite struct EventKindTests {
  /// Lines that look like a kind literal but are not one, each with why (file name, the line's
  /// code trimmed).
  static let allowed: [(file: String, code: String, why: String)] = [
    ("EventFastReader.swift", "case kind = 8", "a bit flag of the reader's member set, not a kind"),
    ("EventFastReader.swift", "var kind = 0", "the reader's initial field value before `kind` is read"),
    ("TLVRecords.swift", "case kind = 3", "the NIP-19 TLV type number of the kind record"),
    ("Event.swift", "package static let maxKind = 65_535", "the bound of the kind field, not a kind"),
    ("LeaseCompactor.swift", "static let maxSharedKinds = 1_024", "a count of kinds, not a kind"),
  ]

  /// A kind compared, assigned or listed as a number (`kind == 9`, `kinds: [39002]`,
  /// `leaseKind = 30350`), a number compared to a kind, or a kind named in text (`"kind 13"`).
  static let patterns: [NSRegularExpression] = [
    #"[kK]inds?\w*\s*(?::\s*[A-Za-z<>\[\]]+\s*)?(==|!=|=|:)\s*\[?\s*\d"#,
    #"\d+\s*(==|!=)\s*[\w.]*\.kind\b"#,
    #"(?i)\bkinds? \d"#,
  ].map { try! NSRegularExpression(pattern: $0) }

  /// A number token (digits and `_`, not part of a name or a decimal).
  static let number = try! NSRegularExpression(pattern: #"(?<![\w.])\d[\d_]*(?![\w.])"#)

  @Test func tableHasUniqueKindsAndNamesInAscendingOrder() {
    let kinds = EventKind.all.map(\.kind)
    #expect(kinds == kinds.sorted())
    #expect(Set(kinds).count == kinds.count)
    #expect(Set(EventKind.all.map(\.name)).count == kinds.count)
    #expect(EventKind.name(of: EventKind.zapReceipt) == "zap_receipt")
    #expect(EventKind.name(of: 2) == nil)
    #expect(EventKind.channelMessages.allSatisfy { EventKind.name(of: $0) != nil })
  }

  @Test func replaceableKindsFollowNIP01() {
    #expect(EventKind.isReplaceable(EventKind.profile))
    #expect(EventKind.isReplaceable(EventKind.followList))
    #expect(EventKind.isReplaceable(10_002))
    #expect(!EventKind.isReplaceable(EventKind.textNote))
    #expect(!EventKind.isReplaceable(EventKind.pushLease))
  }

  /// Whether one line of code writes a kind as a number: a kind pattern, or a number that is one
  /// of `numbered` (the table's kinds of four digits or more, distinctive anywhere).
  static func writesKind(_ code: String, numbered: Set<Int>) -> Bool {
    let range = NSRange(code.startIndex..., in: code)
    if patterns.contains(where: { $0.firstMatch(in: code, range: range) != nil }) { return true }
    return number.matches(in: code, range: range).contains { match in
      Range(match.range, in: code).flatMap { Int(code[$0].replacingOccurrences(of: "_", with: "")) }
        .map(numbered.contains) ?? false
    }
  }

  @Test(arguments: [
    ("guard event.kind == 9 else {", true), ("let filter = Filter(kinds: [39002], limit: 1)", true),
    ("static let wrapKind = 1059", true), ("throw E(message: \"the seal is kind 13\")", true),
    ("if 7 == event.kind {", true), ("tags: [[\"k\", \"9735\"]]", true),
    ("guard event.kind == EventKind.reaction else {", false), ("let limit = 1_024", false),
    ("case 13: return x", false),
  ])
  func recognisesKindLiterals(code: String, expected: Bool) {
    #expect(Self.writesKind(code, numbered: [1059, 9735, 39002]) == expected, "\(code)")
  }

  /// Every line of `Sources/**/*.swift` outside `EventKind.swift` that writes a kind as a number.
  static func kindLiterals() throws -> [String] {
    let sources = PackageRoot.url.appendingPathComponent("Sources")
    let numbered = Set(EventKind.all.map(\.kind).filter { $0 >= 1_000 })
    guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
      return ["Sources/ cannot be listed"]
    }
    var found: [String] = []
    for case let url as URL in walker
    where url.pathExtension == "swift" && url.lastPathComponent != "EventKind.swift" {
      let text = try String(contentsOf: url, encoding: .utf8)
      for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("//") { continue }
        let code = trimmed.components(separatedBy: " //")[0]
        if allowed.contains(where: { $0.file == url.lastPathComponent && $0.code == code }) { continue }
        if writesKind(code, numbered: numbered) {
          found.append("\(url.lastPathComponent):\(index + 1): \(code)")
        }
      }
    }
    return found
  }

  @Test func noKindLiteralOutsideTheTable() throws {
    #expect(try Self.kindLiterals() == [])
  }

  @Test func everyAllowedLineStillExists() throws {
    // An allowlist entry whose line is gone is stale: remove it, so the list stays short.
    let sources = PackageRoot.url.appendingPathComponent("Sources")
    let walker = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
    var lines: Set<String> = []
    for case let url as URL in walker where url.pathExtension == "swift" {
      let text = try String(contentsOf: url, encoding: .utf8)
      for line in text.split(separator: "\n") {
        lines.insert(url.lastPathComponent + " " + line.trimmingCharacters(in: .whitespaces))
      }
    }
    for entry in Self.allowed {
      #expect(
        lines.contains(entry.file + " " + entry.code), "stale allowlist entry: \(entry.file) \(entry.code)")
    }
  }
}
