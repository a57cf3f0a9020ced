/// The pauses before each retry of a chunk that met a busy or locked database.
///
/// The standard schedule is 0.25, 0.5, 1, 2 and 4 s (7.75 s in all); tests use a scaled-down copy
/// so that they exercise the same number of retries quickly.
package struct RetrySchedule: Sendable, Hashable {
  /// The pause before retry 1, 2, …; its count is the number of retries.
  package var delays: [Duration]

  /// A schedule with the given pauses.
  package init(delays: [Duration]) {
    self.delays = delays
  }

  /// 0.25, 0.5, 1, 2 and 4 seconds.
  package static let standard = RetrySchedule(delays: [
    .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4),
  ])

  /// The same number of retries with every pause multiplied by `factor`.
  package func scaled(by factor: Double) -> RetrySchedule {
    RetrySchedule(delays: delays.map { $0 * factor })
  }

  /// The sum of the pauses.
  package var total: Duration { delays.reduce(.zero, +) }
}
