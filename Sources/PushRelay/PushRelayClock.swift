import Foundation

/// The relay's wall clock in Unix milliseconds, injected so tests and the fixture can fix and
/// move it.
///
/// Every time the outbox and the worker compare (fences, backoff, expiry) comes from one clock, so
/// a test advances it past a backoff instead of sleeping through one.
public struct PushRelayClock: Sendable {
  /// Now, in Unix milliseconds.
  public let milliseconds: @Sendable () -> Int64

  /// A clock reading `milliseconds`.
  public init(milliseconds: @escaping @Sendable () -> Int64) {
    self.milliseconds = milliseconds
  }

  /// The system clock.
  public static let system = PushRelayClock { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

  /// Now, in Unix seconds (floor).
  public var seconds: Int64 { SQLiteWakeOutbox.seconds(milliseconds()) }
}

/// A clock that moves only when told: tests, and the fixture's `--now` mode.
public final class ManualPushClock: Sendable {
  private let now: Locked<Int64>

  /// A clock at `milliseconds` (Unix ms).
  public init(milliseconds: Int64) {
    now = Locked(milliseconds)
  }

  /// A clock at Unix second `seconds`.
  public convenience init(seconds: Int64) {
    self.init(milliseconds: seconds * 1000)
  }

  /// Now, in Unix milliseconds.
  public var milliseconds: Int64 { now.current }

  /// Now, in Unix seconds (floor).
  public var seconds: Int64 { SQLiteWakeOutbox.seconds(milliseconds) }

  /// Moves the clock forward by `duration`.
  public func advance(by duration: Duration) {
    let delta = duration.wholeMilliseconds
    now.withLock { $0 += delta }
  }

  /// The `PushRelayClock` reading this clock.
  public var clock: PushRelayClock {
    PushRelayClock { [self] in milliseconds }
  }
}
