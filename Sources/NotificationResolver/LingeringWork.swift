import NostrEvent

/// Enrichment requests still running after the notification was delivered; they write their
/// results to the cache so the next notification is complete.
///
/// An extension process may simply exit; a CLI (`--linger-ms`) or a test awaits them.
public struct LingeringWork: Sendable {
  private let tasks: [Task<Void, Never>]

  init(_ tasks: [Task<Void, Never>]) { self.tasks = tasks }

  /// No lingering work.
  package static let none = LingeringWork([])

  /// This work and `task` after it.
  func adding(_ task: Task<Void, Never>) -> LingeringWork { LingeringWork(tasks + [task]) }

  /// Waits until every request has finished: for a process that outlives the notification (a
  /// test, the CLI); an extension prefers `wait(until:)`.
  public func wait() async {
    for task in tasks { await task.value }
  }

  /// Waits until every request has finished or `deadline` passes; true when all finished.
  @discardableResult
  public func wait(until deadline: ContinuousClock.Instant) async -> Bool {
    let tasks = self.tasks
    return await DeadlineRace.value(by: deadline) {
      for task in tasks { await task.value }
      return true
    } ?? false
  }
}
