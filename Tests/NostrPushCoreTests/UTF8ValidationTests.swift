import NostrPushCore
import Testing

@Suite struct UTF8ValidationTests {
  /// Byte strings built from pieces near every boundary of UTF-8 (overlong forms, surrogates,
  /// the last code point, truncated and stray continuation bytes), ASCII runs of several lengths
  /// around the word steps, shuffled and cut at random.
  static func samples() -> [[UInt8]] {
    let pieces: [[UInt8]] = [
      [0x61], Array("0123456789abcdef01234".utf8), [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xC0, 0x80],
      [0xC1, 0xBF],
      [0xE0, 0xA0, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF],
      [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
      [0xF5, 0x80, 0x80, 0x80], [0x80], [0xBF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x8E], [0xFF], [0xFE],
      Array("日本語 Привет 🎉".utf8),
    ]
    var state: UInt64 = 0x7574_6638
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    var samples: [[UInt8]] = pieces
    for _ in 0..<20_000 {
      var bytes: [UInt8] = []
      for _ in 0..<(1 + next(6)) { bytes += pieces[next(pieces.count)] }
      if next(4) == 0 { bytes.removeLast(next(bytes.count)) }
      samples.append(bytes)
    }
    return samples
  }

  @Test func judgesEveryByteStringAsTheStandardLibraryDoes() {
    var valid = 0
    for bytes in Self.samples() {
      // The standard library's validator is the oracle; at the package's minimums it exists from
      // macOS 15 / iOS 18 on (always on Linux).
      guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
      let expected = String(validating: bytes, as: UTF8.self) != nil
      let judged = bytes.withUnsafeBytes {
        UTF8Text.isValid($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: $0.count)
      }
      #expect(UTF8Text.decode(bytes) == String(validating: bytes, as: UTF8.self))
      #expect(judged == expected, "\(bytes)")
      if expected { valid += 1 }
    }
    #expect(valid > 1_000)
  }
}
