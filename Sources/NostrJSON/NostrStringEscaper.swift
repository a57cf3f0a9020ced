/// Writes strings the way NIP-01 ids are computed.
///
/// The common rule (nostr-tools, go-nostr, rust-nostr, and every id in the public vectors):
/// `"` `\` and the five short escapes (`\n` `\r` `\t` `\b` `\f`); every other U+0000–U+001F as
/// `\u00xx` with lowercase hex; everything else — `/`, U+007F, U+2028, U+2029, all non-ASCII —
/// verbatim as UTF-8. The literal rule reads NIP-01 word for word and writes those other control
/// characters as raw bytes (nostrdb does); ids computed that way are accepted for compatibility.
public enum NostrStringEscaper {
  /// Which escaping rule an id was computed under: `EventVerification.valid` reports it, so a
  /// caller can tell the ids that only the literal rule matches (accepted for compatibility).
  public enum Rule: String, Sendable, Hashable {
    /// The de-facto rule that every major implementation follows (always valid JSON).
    case common
    /// NIP-01 read literally: control characters without a short escape stay raw bytes.
    case literal
  }

  /// Appends `string` as a quoted, escaped JSON string to `output`.
  package static func appendQuoted(_ string: String, rule: Rule = .common, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { utf8 in
      var runStart = 0
      forEachEscapedByte(in: UnsafeRawBufferPointer(utf8), rule: rule) { index, byte in
        output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
        appendEscape(of: byte, to: &output)
        runStart = index + 1
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }
    output.append(UInt8(ascii: "\""))
  }

  /// The number of bytes `writeQuoted` writes for the UTF-8 bytes in `utf8` under `rule`.
  ///
  /// With `writeQuoted`, it lets a caller size one buffer exactly and fill it without growth checks.
  package static func quotedCount(_ utf8: UnsafeRawBufferPointer, rule: Rule = .common) -> Int {
    var total = utf8.count + 2
    forEachEscapedByte(in: utf8, rule: rule) { _, byte in
      total += escapeLength(of: byte) - 1
    }
    return total
  }

  /// Writes the UTF-8 bytes in `utf8` as a quoted, escaped JSON string at `output`, which must
  /// have room for `quotedCount(utf8, rule:)` bytes; returns the number of bytes written.
  ///
  /// The same bytes as `appendQuoted`, written through a pointer for the id computation's hot path.
  package static func writeQuoted(
    _ utf8: UnsafeRawBufferPointer, rule: Rule = .common, to output: UnsafeMutableRawPointer
  ) -> Int {
    output.storeBytes(of: 0x22, as: UInt8.self)
    var written = 1
    var runStart = 0
    forEachEscapedByte(in: utf8, rule: rule) { index, byte in
      written += copyRun(utf8, from: runStart, to: index, at: output + written)
      written += writeEscape(of: byte, to: output + written)
      runStart = index + 1
    }
    written += copyRun(utf8, from: runStart, to: utf8.count, at: output + written)
    (output + written).storeBytes(of: 0x22, as: UInt8.self)
    return written + 1
  }

  /// Calls `body` with the index and value of each byte of `utf8` that `rule` escapes, in order:
  /// the one scan behind `appendQuoted`, `quotedCount` and `writeQuoted`.
  ///
  /// Ordinary bytes are skipped eight at a time (`ByteScan.skipOrdinary`); the bytes between two
  /// calls are written verbatim by every caller.
  @inline(__always)
  private static func forEachEscapedByte(
    in utf8: UnsafeRawBufferPointer, rule: Rule, _ body: (_ index: Int, _ byte: UInt8) -> Void
  ) {
    guard let base = utf8.baseAddress else { return }
    var index = 0
    while index < utf8.count {
      index = ByteScan.skipOrdinary(base, from: index, to: utf8.count)
      guard index < utf8.count else { return }
      let byte = utf8[index]
      if escapes(byte, rule: rule) { body(index, byte) }
      index += 1
    }
  }

  /// Whether `rule` writes `byte` as an escape rather than as itself.
  @inline(__always)
  private static func escapes(_ byte: UInt8, rule: Rule) -> Bool {
    guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { return false }
    return rule == .common || byte >= 0x20 || shortEscape(byte) != nil
  }

  /// Copies `utf8[start..<end]` to `output`; returns the number of bytes copied.
  @inline(__always)
  private static func copyRun(
    _ utf8: UnsafeRawBufferPointer, from start: Int, to end: Int, at output: UnsafeMutableRawPointer
  ) -> Int {
    guard let base = utf8.baseAddress, end > start else { return 0 }
    output.copyMemory(from: base + start, byteCount: end - start)
    return end - start
  }

  /// Writes one byte of decoded string text at `output` as `writeQuoted` would (escaped when
  /// the rule escapes it, else as it is); returns the number of bytes written.
  ///
  /// `JSONStringDecoder` calls it for each byte an escape decodes to, so that an escaped JSON
  /// string is re-escaped in the same pass that decodes it.
  @inline(__always)
  package static func writeDecodedByte(_ byte: UInt8, rule: Rule, to output: UnsafeMutableRawPointer) -> Int {
    guard escapes(byte, rule: rule) else {
      output.storeBytes(of: byte, as: UInt8.self)
      return 1
    }
    return writeEscape(of: byte, to: output)
  }

  /// The length of the escape of a byte that `escapes`: `\n` and the like, else `\u00xx`.
  private static func escapeLength(of byte: UInt8) -> Int {
    shortEscape(byte) == nil ? 6 : 2
  }

  private static func writeEscape(of byte: UInt8, to output: UnsafeMutableRawPointer) -> Int {
    output.storeBytes(of: UInt8(ascii: "\\"), as: UInt8.self)
    if let letter = shortEscape(byte) {
      (output + 1).storeBytes(of: letter, as: UInt8.self)
      return 2
    }
    let hexDigits: StaticString = "0123456789abcdef"
    (output + 1).storeBytes(of: UInt8(ascii: "u"), as: UInt8.self)
    (output + 2).storeBytes(of: UInt8(ascii: "0"), as: UInt8.self)
    (output + 3).storeBytes(of: UInt8(ascii: "0"), as: UInt8.self)
    (output + 4).storeBytes(of: hexDigits.utf8Start[Int(byte >> 4)], as: UInt8.self)
    (output + 5).storeBytes(of: hexDigits.utf8Start[Int(byte & 0x0F)], as: UInt8.self)
    return 6
  }

  /// `string` as a quoted, escaped JSON string.
  package static func quoted(_ string: String, rule: Rule = .common) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(string.utf8.count + 2)
    appendQuoted(string, rule: rule, to: &output)
    return String(decoding: output, as: UTF8.self)
  }

  /// Whether `string` holds a character the two rules write differently.
  package static func rulesDiffer(for string: String) -> Bool {
    string.utf8.contains { $0 < 0x20 && shortEscape($0) == nil }
  }

  private static func shortEscape(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x0A: UInt8(ascii: "n")
    case 0x0D: UInt8(ascii: "r")
    case 0x09: UInt8(ascii: "t")
    case 0x08: UInt8(ascii: "b")
    case 0x0C: UInt8(ascii: "f")
    case 0x22: UInt8(ascii: "\"")
    case 0x5C: UInt8(ascii: "\\")
    default: nil
    }
  }

  private static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
    withUnsafeTemporaryAllocation(byteCount: 6, alignment: 1) { escape in
      let length = writeEscape(of: byte, to: escape.baseAddress!)
      output.append(contentsOf: escape[..<length])
    }
  }
}
