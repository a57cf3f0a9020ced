import Foundation
import Testing

/// Every command's `--help` (`README.md`), run through the binary: it exits 0 with the
/// command's usage, and `Docs/CommandLine.md` has a section for the command naming every flag the
/// help lists.
@Suite(.timeLimit(.minutes(2))) struct HelpTextTests {
  /// The commands `nostr-push --help` lists, in its order.
  static func commands() async throws -> [String] {
    let top = try await NostrPushBinary.run(["--help"])
    #expect(top.status == 0)
    let lines = top.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(of: "commands:") else { return [] }
    return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap {
      $0.split(separator: " ").first.map(String.init)
    }
  }

  /// The `## ` section of `Docs/CommandLine.md` whose heading names `command` in backticks.
  static func section(of command: String, in manual: String) -> String {
    var text = ""
    var inside = false
    for line in manual.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("## ") { inside = line.contains("`\(command)`") }
      if inside { text += line + "\n" }
    }
    return text
  }

  /// The `--flag` names in `text`.
  static func flags(in text: String) -> Set<String> {
    var found: Set<String> = []
    var rest = text[...]
    while let range = rest.range(of: "--") {
      let name = rest[range.upperBound...].prefix { $0.isLowercase || $0.isNumber || $0 == "-" }
      if let first = name.first, first.isLowercase { found.insert("--" + name) }
      rest = rest[range.upperBound...]
    }
    return found
  }

  @Test func everyCommandsHelpExitsZeroAndTheManualNamesEachOfItsFlags() async throws {
    let commands = try await Self.commands()
    #expect(commands.count >= 15, "\(commands)")
    let manual = try String(
      contentsOf: NostrPushBinary.packageRoot.appendingPathComponent("Docs/CommandLine.md"), encoding: .utf8)
    for command in commands {
      let help = try await NostrPushBinary.run([command, "--help"])
      #expect(help.status == 0, "\(command)")
      #expect(help.stdout.hasPrefix("usage: nostr-push \(command)"), "\(command)")
      let section = Self.section(of: command, in: manual)
      #expect(!section.isEmpty, "Docs/CommandLine.md has no section for \(command)")
      let undocumented = Self.flags(in: help.stdout).filter { !section.contains($0) }.sorted()
      #expect(undocumented.isEmpty, "\(command): \(undocumented) are in --help but not in its manual section")
    }
  }
}
