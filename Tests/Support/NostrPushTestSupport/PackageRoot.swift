import Foundation

/// Where the package's own files are when tests run: the root folder (holding `Package.swift`)
/// and the conformance vectors the repository keeps in `Fixtures/vectors`.
///
/// Found once, from this file's path, for every test target that reads `Fixtures/`, the
/// vectors, the docs or a helper built into `.build`.
public enum PackageRoot {
  /// The nearest folder above this source file that holds `Package.swift`, else the working
  /// directory.
  public static let url: URL = {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while folder.path != "/" {
      if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        return folder
      }
      folder.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  }()

  /// `path` under the package root, such as `Fixtures/demo`.
  public static func appending(_ path: String) -> URL { url.appendingPathComponent(path) }

  /// The public conformance vectors, copied into the repository with their source notes
  /// (`Fixtures/vectors/SOURCE.md`).
  public static let vectors: URL = appending("Fixtures/vectors")
}

extension PackageRoot {
  /// The executable `name` built with the tests: beside the test bundle (or up to three folders
  /// above it), else in `.build/debug`; nil when it is not built.
  ///
  /// For the helper processes a test starts and kills (`CacheStressHelper`, `PushRelayCrashHelper`).
  public static func builtExecutable(_ name: String) -> URL? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      directory = directory.deletingLastPathComponent()
    }
    let built = appending(".build/debug/" + name)
    return FileManager.default.isExecutableFile(atPath: built.path) ? built : nil
  }
}
