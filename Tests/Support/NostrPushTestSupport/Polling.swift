/// Waiting for a condition with a deadline, instead of sleeping for a guessed time.
public enum Polling {
  /// Checks `condition` every `interval` until it holds or `timeout` passes; whether it held.
  ///
  /// Use it to wait for something another thread or process does; a `false` answer after the
  /// whole timeout is also how a test shows that something did *not* happen within a bound.
  public static func eventually(
    within timeout: Duration, every interval: Duration = .milliseconds(5), _ condition: () -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if condition() { return true }
      try? await Task.sleep(for: interval)
    }
    return condition()
  }

  /// ``eventually(within:every:_:)`` for a condition that must await (a stand-in's counters
  /// read over its control port).
  public static func eventuallyAwaiting(
    within timeout: Duration, every interval: Duration = .milliseconds(5), _ condition: () async -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if await condition() { return true }
      try? await Task.sleep(for: interval)
    }
    return await condition()
  }
}
