import Foundation

/// A value guarded by a lock: the package's one way to share mutable state between threads (a
/// fixture's loop, a connection's thread, a resolver's deadline guard, a clock tests move).
///
/// `@unchecked Sendable` is sound because every access to `value` goes through `withLock`, which
/// holds the lock for the whole closure. Keep the closure short and never await inside it.
package final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  /// Creates the box holding `value`.
  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
    throws(Failure)
    -> Result
  {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  /// A copy of the value, read under the lock (for value types: a reference read here escapes
  /// the lock).
  package var current: Value { withLock { $0 } }
}
