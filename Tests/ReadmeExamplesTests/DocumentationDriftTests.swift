import Foundation
import NostrPushTestSupport
import Testing

/// Keeps the Swift in `README.md` and `Docs/*.md` identical to code the test suite compiles.
///
/// Every ```swift block in those files is preceded by a marker: `<!-- compiled: File.testName -->`
/// (the block is in the body of `func testName` in `Tests/ReadmeExamplesTests/File.swift`, its
/// leading `import` lines among the file's imports), `<!-- compiled: File -->` (the block is in
/// that file) or `<!-- not compiled: reason -->` (Package.swift fragments, UIKit code that cannot
/// build on Linux).
@Suite struct DocumentationDriftTests {
  @Test(arguments: MarkdownFile.all)
  func compiledBlocksAppearVerbatimInTheirTests(_ file: MarkdownFile) throws {
    for block in try file.swiftBlocks() {
      guard case .compiled(let fileName, let testName) = block.marker else { continue }
      let source = try ExampleSource(named: fileName)
      if let testName {
        let body = try #require(
          source.body(of: testName), "\(file.name):\(block.line): no func \(testName) in \(fileName).swift")
        #expect(
          Self.contains(body, block.code),
          "\(file.name):\(block.line): the block differs from the body of \(fileName).\(testName)")
      } else {
        #expect(
          source.lines.joined(separator: "\n").contains(block.code),
          "\(file.name):\(block.line): the block differs from \(fileName).swift")
      }
      for line in block.imports {
        #expect(
          source.topLevelLines.contains(line), "\(file.name):\(block.line): \(line) missing in \(fileName)")
      }
    }
  }

  /// Whether `body` holds `code` at the body's own level or nested deeper (a block inside a
  /// `serving { }` closure of the test stands two spaces in per level).
  static func contains(_ body: String, _ code: String) -> Bool {
    (0...3).contains { depth in
      let indent = String(repeating: "  ", count: depth)
      let nested = code.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.isEmpty ? "" : indent + $0 }.joined(separator: "\n")
      return body.contains(nested)
    }
  }

  @Test(arguments: MarkdownFile.all)
  func marksEverySwiftBlockAsCompiledOrNot(_ file: MarkdownFile) throws {
    for block in try file.swiftBlocks() {
      #expect(block.marker != nil, "\(file.name):\(block.line): a swift block without a compiled marker")
    }
  }

  @Test func compilesAnExampleForEveryLibraryInTheReadme() throws {
    let readme = try #require(MarkdownFile.all.first { $0.name == "README.md" })
    let tests = try readme.swiftBlocks().compactMap { block -> String? in
      guard case .compiled(_, let testName?) = block.marker else { return nil }
      return testName
    }
    #expect(
      Set(tests).isSuperset(of: [
        "canonicalisesARelayOrigin", "readsJSONStrictly", "decodesAnNpubAndCompactsIt",
        "signsVerifiesAndAuthenticatesAnHTTPRequest",
        "parsesAPushDescriptorStrictly", "storesAndLooksUpAVerifiedProfile",
        "queriesAFixtureRelayOverLoopback", "resolvesAWakeAgainstAFixtureRelay",
        "encryptsAndDecryptsANIP44Payload",
        "queriesAndPublishesOverWebSocket",
        "enrollsADeviceAndTheRelayOpensTheLease",
      ]))
  }
}

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

/// A Markdown file of the package whose Swift blocks are checked.
struct MarkdownFile: Sendable, CustomTestStringConvertible {
  /// The path relative to the package root (`README.md`, `Docs/Testing.md`).
  var name: String

  var testDescription: String { name }

  /// `README.md` and every Markdown file in `Docs/`, sorted by name.
  static let all: [MarkdownFile] = {
    let docs = packageRoot.appendingPathComponent("Docs")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
    return [MarkdownFile(name: "README.md")]
      + names.filter { $0.hasSuffix(".md") }.sorted().map { MarkdownFile(name: "Docs/" + $0) }
  }()

  /// A fenced ```swift block with the marker above it.
  struct Block {
    /// What the marker says.
    enum Marker: Equatable {
      /// `compiled: File.test` (the body of a test) or `compiled: File` (anywhere in the file).
      case compiled(file: String, test: String?)
      case notCompiled
    }

    var marker: Marker?
    /// The 1-based line of the opening fence.
    var line: Int
    /// The leading `import`, `#if canImport` and `#endif` lines.
    var imports: [String]
    /// The rest of the block, joined with newlines.
    var code: String
  }

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

  /// Every ```swift block, in order.
  func swiftBlocks() throws -> [Block] {
    let text = try String(contentsOf: packageRoot.appendingPathComponent(name), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    var blocks: [Block] = []
    var index = 0
    while index < lines.count {
      guard lines[index].trimmingCharacters(in: .whitespaces) == "```swift" else {
        index += 1
        continue
      }
      let opening = index
      var body: [String] = []
      index += 1
      while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
        body.append(lines[index])
        index += 1
      }
      index += 1
      var previous = opening - 1
      while previous >= 0, lines[previous].trimmingCharacters(in: .whitespaces).isEmpty { previous -= 1 }
      let marker = previous >= 0 ? Self.marker(lines[previous]) : nil
      let prelude = body.prefix { line in
        line.hasPrefix("import ") || line.hasPrefix("#if canImport") || line == "#endif" || line.isEmpty
      }
      let code = body.dropFirst(prelude.count)
      blocks.append(
        Block(
          marker: marker, line: opening + 1, imports: prelude.filter { !$0.isEmpty },
          code: code.joined(separator: "\n").trimmingCharacters(in: .newlines)))
    }
    return blocks
  }

  private static func marker(_ line: String) -> Block.Marker? {
    let text = line.trimmingCharacters(in: .whitespaces)
    guard text.hasPrefix("<!--"), text.hasSuffix("-->") else { return nil }
    let inner = text.dropFirst(4).dropLast(3).trimmingCharacters(in: .whitespaces)
    if inner.hasPrefix("not compiled:") { return .notCompiled }
    guard inner.hasPrefix("compiled:") else { return nil }
    let name = inner.dropFirst("compiled:".count).trimmingCharacters(in: .whitespaces)
    let parts = name.split(separator: ".")
    guard (1...2).contains(parts.count) else { return nil }
    return .compiled(file: String(parts[0]), test: parts.count == 2 ? String(parts[1]) : nil)
  }
}

/// A Swift file of this test target holding compiled examples.
struct ExampleSource {
  var lines: [String]

  /// Reads `Tests/ReadmeExamplesTests/<name>.swift`.
  init(named name: String) throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      name + ".swift")
    lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
  }

  /// Lines at column 0 (imports and conditional compilation).
  var topLevelLines: Set<String> { Set(lines.filter { !$0.hasPrefix(" ") }) }

  /// The body of `func name(`, de-indented to the function's own body level.
  func body(of name: String) -> String? {
    guard let start = lines.firstIndex(where: { $0.contains("func \(name)(") }) else { return nil }
    let indent = String(lines[start].prefix { $0 == " " })
    let inner = indent + "  "
    var body: [String] = []
    for line in lines[(start + 1)...] {
      if line == indent + "}" { break }
      body.append(line.hasPrefix(inner) ? String(line.dropFirst(inner.count)) : line)
    }
    return body.joined(separator: "\n")
  }
}
