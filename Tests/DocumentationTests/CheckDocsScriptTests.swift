import Foundation
import NostrPushTestSupport
import Testing

/// Runs `Scripts/check-docs` (what CI runs) on a sample holding every case it must catch and
/// every case it must let pass.
@Suite struct CheckDocsScriptTests {
  /// Each undocumented public declaration is named `flagged…`; everything else must pass.
  static let sample = #"""
    /// Documented.
    public protocol Transport: Sendable {
      func flaggedRequirement()
      /// Documented requirement.
      var documentedRequirement: Int { get }
    }

    /// Documented.
    public enum Mode: String {
      case flaggedCase
      /// Documented case.
      case documentedCase
      /// Documented.
      public func describe() -> String {
        switch self {
        case .flaggedCase: "a switch case is not a declaration"
        case .documentedCase: "{ public func inString() {} }"
        }
      }
    }

    public extension Mode {
      func flaggedImplicitlyPublic() {}
      private func privateMember() {}
      /// Documented.
      static var documentedImplicitlyPublic: Int { 1 }
    }

    extension Mode {
      @available(
        macOS 13, *
      )
      public func flaggedAfterMultiLineAttribute() {}
      /// Documented across a multi-line attribute.
      @available(
        macOS 13, *
      )
      public func documentedAcrossMultiLineAttribute() {}
      /// Documented.
      @available(macOS 13, *) @discardableResult public func documentedWithAttributes() -> Int { 1 }
      /// Documented under a line of several attributes.
      @inlinable @inline(__always)
      public func documentedUnderSeveralAttributes() {}
      @available(macOS 13, *) @discardableResult public func flaggedWithAttributes() -> Int { 1 }
      nonisolated public func flaggedModifierFirst() {}
      /// Detached by a blank line.

      public func flaggedAfterBlankLine() {}
      public var description: String { "exempt: CustomStringConvertible" }
    }

    /// Documented.
    public struct Holder {
      let text = """
        public func insideMultiLineString() {
        """
      /* public func insideBlockComment() {} */
      public private(set) var flaggedSetter: Int = 0
      /// Documented.
      public init() {}
    }
    """#

  @Test func flagsExactlyTheUndocumentedPublicDeclarations() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.sample.write(
      to: folder.appendingPathComponent("Sample.swift"), atomically: true, encoding: .utf8)

    let exit = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", packageRoot.appendingPathComponent("Scripts/check-docs").path, folder.path])

    let names = exit.stdoutText.split(separator: "\n").dropFirst().map { line in
      line.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).first { $0.hasPrefix("flagged") }
        .map(String.init) ?? String(line)
    }
    #expect(exit.status == 1)
    #expect(
      names == [
        "flaggedRequirement", "flaggedCase", "flaggedImplicitlyPublic", "flaggedAfterMultiLineAttribute",
        "flaggedWithAttributes", "flaggedModifierFirst", "flaggedAfterBlankLine", "flaggedSetter",
      ])
  }

  /// The sample's Markdown names, spelled in pieces so that this file itself cites nothing
  /// missing: the guide, a file beside it, a file that exists nowhere.
  static let (guideName, presentName, absentName) = (
    "Guide" + ".md", "present" + ".md", "absent-spec" + ".md"
  )

  /// A guide whose Swift blocks and citations break each rule once, beside ones that pass.
  static let guide = [
    "Cites [\(presentName)](\(presentName)) and `\(absentName)` §2.", "",
    "```swift", "let unmarked = 1", "```", "",
    "<!-- not compiled: -->", "```swift", "let noReason = 1", "```", "",
    "<!-- not compiled: Apple-only API -->", "```swift", "let apple = 1", "```", "",
    "<!-- compiled: Examples/RelayHost/Sources/relay-host/main.swift -->", "```swift",
    "import RelayHostDemo", "", "for line in try await RelayHostDemo.run() { print(line) }", "```", "",
    "<!-- compiled: Examples/RelayHost/Sources/relay-host/main.swift -->", "```swift",
    "for line in try await RelayHostDemo.run() { print(line, line) }", "```", "",
    "<!-- compiled: Sources/NostrJSON/JSONWriter.swift -->", "```swift", "let outside = 1", "```",
  ].joined(separator: "\n")

  @Test func flagsUnmarkedOrDriftedBlocksAndMissingCitations() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.guide.write(to: folder.appendingPathComponent(Self.guideName), atomically: true, encoding: .utf8)
    try "# present".write(
      to: folder.appendingPathComponent(Self.presentName), atomically: true, encoding: .utf8)

    let exit = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", packageRoot.appendingPathComponent("Scripts/check-docs").path, folder.path])

    let problems = exit.stdoutText.split(separator: "\n").filter { $0.contains(Self.guideName + ":") }
      .map { $0.split(separator: ":", maxSplits: 2).dropFirst().joined(separator: ":") }
    #expect(exit.status == 1)
    #expect(
      problems == [
        "3: a swift block without `<!-- compiled: PATH -->` or `<!-- not compiled: REASON -->`",
        "8: `not compiled:` without a reason",
        "25: the block differs from Examples/RelayHost/Sources/relay-host/main.swift",
        "30: Sources/NostrJSON/JSONWriter.swift is not a file under Examples/",
        "1: cites \(Self.absentName), which is not in the repository",
      ])
  }

  @Test func passesTheSources() async throws {
    let exit = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", packageRoot.appendingPathComponent("Scripts/check-docs").path])
    #expect(exit.status == 0, "\(exit.stdoutText)")
  }
}
