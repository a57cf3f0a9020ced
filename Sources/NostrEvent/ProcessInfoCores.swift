import Foundation

/// How many cores this process may run on.
enum ProcessInfoCores {
  /// The active processor count reported by the system (at least 1).
  static var active: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}
