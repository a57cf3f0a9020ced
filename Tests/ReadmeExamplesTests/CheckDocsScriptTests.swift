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

  @Test func passesTheSources() async throws {
    let exit = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", packageRoot.appendingPathComponent("Scripts/check-docs").path])
    #expect(exit.status == 0, "\(exit.stdoutText)")
  }
}
