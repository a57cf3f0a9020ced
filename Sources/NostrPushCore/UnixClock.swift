#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The package's one wall clock, read in Unix milliseconds with Unix seconds derived from it.
///
/// Everything that compares wall time reads one injected clock: the resolver (message eligibility,
/// freshness, NIP-98 `created_at`), the relay's push side (lease times, fences, backoff, wake
/// expiry), the fixtures and the CLI's `--now`. Use ``system`` in production and ``fixed(_:)`` or
/// a ``ManualUnixClock`` in tests, so every read agrees and a test moves time instead of sleeping.
public struct UnixClock: Sendable {
  private let read: @Sendable () -> Int64

  /// A clock that reads `milliseconds` (Unix ms) each time.
  public init(milliseconds: @escaping @Sendable () -> Int64) { read = milliseconds }

  /// Now, in Unix milliseconds.
  public func nowMilliseconds() -> Int64 { read() }

  /// Now, in Unix seconds (the floor of ``nowMilliseconds()``).
  public func now() -> Int64 { Self.seconds(read()) }

  /// The system's wall clock (`clock_gettime(CLOCK_REALTIME)`).
  public static let system = UnixClock {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
  }

  /// A clock stopped at Unix second `seconds`.
  public static func fixed(_ seconds: Int64) -> UnixClock {
    let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    let stopped = overflow ? (seconds < 0 ? Int64.min : Int64.max) : milliseconds
    return UnixClock { stopped }
  }

  /// Unix seconds of a Unix-millisecond instant (floor, also before 1970).
  package static func seconds(_ milliseconds: Int64) -> Int64 {
    milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
  }
}

/// A clock that moves only when told: tests, and fixtures started with a fixed `now`.
///
/// Hand ``clock`` to every part that reads time (relay, worker, gateway fixture), then
/// ``advance(by:)`` past a backoff or an expiry instead of sleeping through it.
public final class ManualUnixClock: Sendable {
  private let current: Locked<Int64>

  /// A clock at `milliseconds` (Unix ms).
  public init(milliseconds: Int64) {
    current = Locked(milliseconds)
  }

  /// A clock at Unix second `seconds`.
  public convenience init(seconds: Int64) {
    self.init(milliseconds: seconds * 1000)
  }

  /// Now, in Unix milliseconds.
  public var milliseconds: Int64 { current.current }

  /// Now, in Unix seconds (floor).
  public var seconds: Int64 { UnixClock.seconds(milliseconds) }

  /// Moves the clock forward by `duration` (whole milliseconds).
  public func advance(by duration: Duration) {
    let delta = duration.wholeMilliseconds
    current.withLock { $0 += delta }
  }

  /// The ``UnixClock`` reading this clock.
  public var clock: UnixClock {
    UnixClock { [current] in current.current }
  }
}
