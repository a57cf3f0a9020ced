#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the resolver reads the wall-clock time (unix seconds): message eligibility, freshness and
/// NIP-98 `created_at` all read it.
///
/// Use ``system`` in production and ``fixed(_:)`` in tests and for `--now`, so every read agrees.
public struct UnixClock: Sendable {
  private let read: @Sendable () -> Int64

  /// A clock that reads `read` each time.
  public init(_ read: @escaping @Sendable () -> Int64) { self.read = read }

  /// The current unix time in seconds.
  public func now() -> Int64 { read() }

  /// The system's wall clock.
  public static let system = UnixClock { Int64(time(nil)) }

  /// A clock stopped at `seconds`.
  public static func fixed(_ seconds: Int64) -> UnixClock { UnixClock { seconds } }
}
