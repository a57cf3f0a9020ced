/// One `nostr-push` subcommand.
protocol CLICommand: Sendable {
  /// The word that selects the command (`verify`, `nip19`, …).
  static var name: String { get }
  /// One line for the command list.
  static var summary: String { get }
  /// The full usage text printed by `--help` and after a usage error.
  static var usage: String { get }
  /// Runs the command; returns the exit status. Throws `UsageError` for bad arguments.
  static func run(_ arguments: [String]) async throws -> Int32
}

/// The exit statuses of `Docs/CommandLine.md`.
enum ExitCode {
  /// Every input valid, or the operation succeeded.
  static let success: Int32 = 0
  /// At least one input invalid, or the operation failed.
  static let failure: Int32 = 1
  /// Unknown command or flag, or a missing argument.
  static let usage: Int32 = 2
}

/// Bad command-line arguments: exit status 2 with the command's usage.
struct UsageError: Error {
  var message: String
  init(_ message: String) { self.message = message }
}
