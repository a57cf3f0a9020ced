import Foundation
import NostrPushTestSupport
import Testing

/// Keeps the README and the guides about this repository alone: links that resolve inside it,
/// and no path of the machine they were written on.
@Suite struct DocumentationLinkTests {
  @Test(arguments: MarkdownFile.all)
  func relativeLinksNameFilesOfThePackage(_ file: MarkdownFile) throws {
    let folder = packageRoot.appendingPathComponent(file.name).deletingLastPathComponent()
    for link in try file.relativeLinks() {
      let path = String(link.prefix { $0 != "#" })
      guard !path.isEmpty else { continue }
      let target = folder.appendingPathComponent(path).standardizedFileURL.path
      #expect(
        FileManager.default.fileExists(atPath: target), "\(file.name): the link \(link) names no file")
      #expect(
        target.hasPrefix(packageRoot.standardizedFileURL.path), "\(file.name): \(link) leaves the package")
    }
  }

  @Test(arguments: MarkdownFile.all)
  func namesNoPathOfTheWritingMachine(_ file: MarkdownFile) throws {
    let text = try String(contentsOf: packageRoot.appendingPathComponent(file.name), encoding: .utf8)
    // Spelled in pieces, so that this file itself names none of them.
    for fragment in ["/" + "work/", ".." + "/shared", "/" + "home/", "/" + "Users/"] {
      #expect(!text.contains(fragment), "\(file.name) names \(fragment)")
    }
  }
}

/// The package root: the nearest folder above this file holding `Package.swift`.
var packageRoot: URL { PackageRoot.url }

/// A Markdown file of the package whose links are checked.
struct MarkdownFile: Sendable, CustomTestStringConvertible {
  /// The path relative to the package root (`README.md`, `Docs/CommandLine.md`).
  var name: String

  var testDescription: String { name }

  /// `README.md` and every Markdown file in `Docs/`, sorted by name.
  static let all: [MarkdownFile] = {
    let docs = packageRoot.appendingPathComponent("Docs")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
    return [MarkdownFile(name: "README.md")]
      + names.filter { $0.hasSuffix(".md") }.sorted().map { MarkdownFile(name: "Docs/" + $0) }
  }()

  /// The targets of its Markdown links that are neither URLs nor in-page anchors.
  func relativeLinks() throws -> [String] {
    let text = try String(contentsOf: packageRoot.appendingPathComponent(name), encoding: .utf8)
    var links: [String] = []
    var rest = text[...]
    while let open = rest.range(of: "](") {
      rest = rest[open.upperBound...]
      guard let close = rest.firstIndex(of: ")") else { break }
      let target = String(rest[..<close])
      rest = rest[close...]
      if target.contains("://") || target.hasPrefix("#") || target.hasPrefix("mailto:") { continue }
      links.append(target)
    }
    return links
  }
}
