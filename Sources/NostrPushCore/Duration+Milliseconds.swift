extension Duration {
  /// The duration in whole milliseconds, rounded toward zero: the unit of the suite's timeouts,
  /// clocks and `elapsed_ms` figures.
  package var wholeMilliseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
  }
}
