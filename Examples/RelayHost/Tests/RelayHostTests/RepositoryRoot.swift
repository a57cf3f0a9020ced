import Foundation

/// The repository's root folder (this file is `Examples/RelayHost/Tests/RelayHostTests/`), where
/// the examples read `Fixtures/`.
let packageRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// Waiting for a condition with a deadline, instead of sleeping for a guessed time.
enum Polling {
  /// Checks `condition` every `interval` until it holds or `timeout` passes; whether it held.
  static func eventually(
    within timeout: Duration, every interval: Duration = .milliseconds(5), _ condition: () -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if condition() { return true }
      try? await Task.sleep(for: interval)
    }
    return condition()
  }
}
