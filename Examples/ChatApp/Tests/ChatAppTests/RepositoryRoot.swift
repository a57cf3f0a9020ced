import Foundation

/// The repository's root folder (this file is `Examples/ChatApp/Tests/ChatAppTests/`), where the
/// examples read `Fixtures/`.
let packageRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()
