/// Base64 of RFC 4648 §4 (standard alphabet, `=` padding, no line breaks), canonical only.
///
/// NIP-44 payloads are compared and authenticated as exact text, so the decoder accepts one
/// spelling per byte string: length a multiple of 4, at most two `=` and only at the end, and the
/// last symbol's unused bits zero. `Data(base64Encoded:)` accepts non-zero unused bits, hence this
/// decoder.
enum Base64 {
  private static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet (`=` included).
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (value, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(value) }
    return table
  }()

  /// The padded encoding of `bytes`.
  static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
    let outputCount = (bytes.count + 2) / 3 * 4
    return alphabet.withUnsafeBufferPointer { table in
      String(unsafeUninitializedCapacity: outputCount) { output in
        var written = 0
        var index = 0
        while index + 3 <= bytes.count {
          let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
          output[written] = table[Int(group >> 18)]
          output[written + 1] = table[Int(group >> 12 & 0x3F)]
          output[written + 2] = table[Int(group >> 6 & 0x3F)]
          output[written + 3] = table[Int(group & 0x3F)]
          written += 4
          index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
          let second = rest == 2 ? UInt32(bytes[index + 1]) : 0
          let group = UInt32(bytes[index]) << 16 | second << 8
          output[written] = table[Int(group >> 18)]
          output[written + 1] = table[Int(group >> 12 & 0x3F)]
          output[written + 2] = rest == 2 ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
          output[written + 3] = UInt8(ascii: "=")
          written += 4
        }
        return written
      }
    }
  }

  /// The bytes of canonical base64 `text`, or nil when it is not canonical (see the type).
  static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
    guard text.count % 4 == 0 else { return nil }
    if text.count == 0 { return [] }
    var padding = 0
    if text[text.count - 1] == UInt8(ascii: "=") {
      padding = text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1
    }
    let outputCount = text.count / 4 * 3 - padding
    var failed = false
    let output = values.withUnsafeBufferPointer { table in
      [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
        var written = 0
        var index = 0
        let symbolCount = text.count - padding
        var invalid: UInt8 = 0
        while index + 4 <= symbolCount {
          let a = table[Int(text[index])]
          let b = table[Int(text[index + 1])]
          let c = table[Int(text[index + 2])]
          let d = table[Int(text[index + 3])]
          invalid |= (a | b | c | d) & 0x80
          let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
          output[written] = UInt8(truncatingIfNeeded: group >> 16)
          output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
          output[written + 2] = UInt8(truncatingIfNeeded: group)
          written += 3
          index += 4
        }
        if padding > 0 {
          let a = table[Int(text[index])]
          let b = table[Int(text[index + 1])]
          let c = padding == 1 ? table[Int(text[index + 2])] : 0
          invalid |= (a | b | c) & 0x80
          // The unused bits of the last symbol: 4 of `b` with two `=`, 2 of `c` with one.
          let unused = padding == 2 ? b & 0x0F : c & 0x03
          if invalid == 0 && unused != 0 { invalid = 0x80 }
          let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
          output[written] = UInt8(truncatingIfNeeded: group >> 16)
          written += 1
          if padding == 1 {
            output[written] = UInt8(truncatingIfNeeded: group >> 8)
            written += 1
          }
        }
        failed = invalid != 0
        initialized = written
      }
    }
    return failed ? nil : output
  }
}
