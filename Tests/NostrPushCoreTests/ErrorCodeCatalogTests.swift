import Foundation
import NostrPushTestSupport
import Testing

/// `Scripts/check-error-codes` (`README.md`): per module, the public throwing API and the
/// codes it can produce, every code public and minted only where its domain is declared. Run on
/// the sources, and on a sample holding each fault it must catch.
@Suite struct ErrorCodeCatalogTests {
  static let script = PackageRoot.appending("Scripts/check-error-codes").path

  /// A module declaring a domain with one public and one `package` code, minting a code at a call
  /// site, and throwing untyped from public API.
  static let sample = #"""
    /// Documented.
    public enum SampleErrorDomain: ErrorDomain {}
    /// Documented.
    public typealias SampleError = DomainError<SampleErrorDomain>

    extension ErrorCode where Domain == SampleErrorDomain {
      /// Public.
      public static var namedByCallers: Self { Self("named_by_callers") }
      /// Hidden.
      package static var hiddenFromCallers: Self { Self("hidden_from_callers") }
    }

    /// Documented.
    public func typed() throws(SampleError) {
      throw SampleError(code: .namedByCallers, message: "x")
    }

    /// Documented.
    public func untyped() throws {
      throw SampleError(code: ErrorCode<SampleErrorDomain>("invented_here"), message: "y")
    }

    // A comment may say ErrorCode<SampleErrorDomain>("x") without minting anything.
    """#

  @Test func listsEachModulesThrowingAPIAndFlagsEachFault() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    let module = folder.appendingPathComponent("SampleModule")
    try FileManager.default.createDirectory(at: module, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.sample.write(
      to: module.appendingPathComponent("Sample.swift"), atomically: true, encoding: .utf8)

    let exit = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.script, folder.path])
    let lines = exit.stdoutText.split(separator: "\n").map(String.init)
    #expect(exit.status == 1)
    #expect(lines.first == "SampleModule: 1 public throwing declarations")
    #expect(lines.contains("  SampleError: named_by_callers"))
    #expect(lines.contains("unused codes of SampleErrorDomain: hidden_from_callers"))
    let problems = lines.drop { !$0.hasPrefix("check-error-codes:") }.dropFirst()
    #expect(problems.count == 3, "\(lines)")
    #expect(
      problems.contains {
        $0.contains("SampleErrorDomain.hiddenFromCallers ('hidden_from_callers') is not public")
      })
    #expect(problems.contains { $0.hasSuffix("Sample.swift:19: public untyped throws an untyped error") })
    #expect(
      problems.contains { $0.hasSuffix("Sample.swift:20: a code minted outside its domain's declarations") })
  }

  @Test func passesTheSourcesAndCatalogsEveryLibrary() async throws {
    let exit = try await ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.script, "--list"])
    #expect(exit.status == 0, "\(exit.stdoutText)")
    let modules = exit.stdoutText.split(separator: "\n").filter { !$0.hasPrefix(" ") }.compactMap {
      $0.split(separator: ":").first.map(String.init)
    }
    for library in [
      "NostrJSON", "Bech32", "NostrEvent", "NostrHTTP", "NIP44", "NostrWebSocket", "EnrichmentCache",
      "PushDescriptor", "PushLease", "GiftWrap", "NotificationResolver", "PushRelay", "PushRelayPostgres",
    ] {
      #expect(modules.contains(library), "\(library) is missing from the catalog")
    }
  }
}
