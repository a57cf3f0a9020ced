extension NIP44 {
  /// The shortest padded plaintext: every message of at most 32 bytes pads to 32.
  static let minPaddedCount = 32

  /// The padded length of an `n`-byte plaintext (NIP-44 `calc_padded_len`), in integers only.
  ///
  /// 32 for n ≤ 32; else with `p` the next power of two ≥ n, a chunk of 32 (p ≤ 256) or p / 8,
  /// and n rounded up to a whole number of chunks.
  static func paddedLength(_ n: Int) -> Int {
    guard n > minPaddedCount else { return minPaddedCount }
    let nextPower = 1 << (Int.bitWidth - (n - 1).leadingZeroBitCount)
    let chunk = nextPower <= 256 ? 32 : nextPower / 8
    return chunk * ((n - 1) / chunk + 1)
  }
}
