import NostrJSON
import NostrPushCore

/// Writes the NIP-01 serialization `[0,"<pubkey>",<created_at>,<kind>,<tags>,"<content>"]`
/// whose SHA-256 is an event's id.
///
/// Every verification hashes this serialization, so it is written in two passes over the
/// strings: one that counts the exact size, one that writes through a pointer into a single
/// buffer of that size (on the stack when it is small), with no growth checks in between.
enum CanonicalSerializer {
  /// The largest serialization written into a stack buffer; longer ones take one heap buffer.
  static let maxStackBytes = 16 * 1024

  /// The serialization under `rule`.
  static func bytes(
    pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String,
    rule: NostrStringEscaper.Rule
  ) -> [UInt8] {
    let count = byteCount(
      pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule)
    return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
      initialized = write(
        pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule,
        to: UnsafeMutableRawPointer(output.baseAddress!))
    }
  }

  /// Writes the SHA-256 of the serialization under `rule` into the first 32 bytes of `digest`.
  static func hash(
    pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String,
    rule: NostrStringEscaper.Rule, into digest: UnsafeMutableRawBufferPointer
  ) {
    let body = { (buffer: UnsafeMutableRawBufferPointer) in
      let written = write(
        pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule,
        to: buffer.baseAddress!)
      NostrSHA256.hash(buffer: UnsafeRawBufferPointer(rebasing: buffer[0..<written]), into: digest)
    }
    // Most events fit the stack buffer even if every byte were escaped, so they skip the count.
    if upperBound(pubkey: pubkey, tags: tags, content: content) <= maxStackBytes {
      withUnsafeTemporaryAllocation(byteCount: maxStackBytes, alignment: 16, body)
    } else {
      let count = byteCount(
        pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule)
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
      defer { buffer.deallocate() }
      body(buffer)
    }
  }

  /// The id bytes (SHA-256 of the serialization) under `rule`.
  static func id(
    pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String,
    rule: NostrStringEscaper.Rule
  ) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: NostrSHA256.digestCount) { output, initialized in
      hash(
        pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule,
        into: UnsafeMutableRawBufferPointer(output))
      initialized = NostrSHA256.digestCount
    }
  }

  /// A size the serialization never exceeds: every string byte escaped as `\u00xx`, both
  /// integers at their widest.
  static func upperBound(pubkey: String, tags: [[String]], content: String) -> Int {
    var total = 64 + 6 * (pubkey.utf8.count + content.utf8.count)
    for tag in tags {
      total += 3
      for value in tag { total += 3 + 6 * value.utf8.count }
    }
    return total
  }

  /// The exact size of the serialization under `rule`.
  static func byteCount(
    pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String,
    rule: NostrStringEscaper.Rule
  ) -> Int {
    // `[0,` + quoted pubkey + `,` + created_at + `,` + kind + `,[` + tags + `],` + content + `]`
    var total =
      3 + quotedCount(pubkey, rule: rule) + 1 + digitCount(createdAt) + 1 + digitCount(Int64(kind)) + 2
    for (tagIndex, tag) in tags.enumerated() {
      total += tagIndex > 0 ? 3 : 2
      for (valueIndex, value) in tag.enumerated() {
        total += quotedCount(value, rule: rule) + (valueIndex > 0 ? 1 : 0)
      }
    }
    return total + 2 + quotedCount(content, rule: rule) + 1
  }

  /// Writes the serialization under `rule` at `output` (room for `byteCount` bytes); returns
  /// the number of bytes written.
  static func write(
    pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String,
    rule: NostrStringEscaper.Rule, to output: UnsafeMutableRawPointer
  ) -> Int {
    var cursor = output
    put(UInt8(ascii: "["), &cursor)
    put(UInt8(ascii: "0"), &cursor)
    put(UInt8(ascii: ","), &cursor)
    writeQuoted(pubkey, rule: rule, &cursor)
    put(UInt8(ascii: ","), &cursor)
    writeInteger(createdAt, &cursor)
    put(UInt8(ascii: ","), &cursor)
    writeInteger(Int64(kind), &cursor)
    put(UInt8(ascii: ","), &cursor)
    put(UInt8(ascii: "["), &cursor)
    for (tagIndex, tag) in tags.enumerated() {
      if tagIndex > 0 { put(UInt8(ascii: ","), &cursor) }
      put(UInt8(ascii: "["), &cursor)
      for (valueIndex, value) in tag.enumerated() {
        if valueIndex > 0 { put(UInt8(ascii: ","), &cursor) }
        writeQuoted(value, rule: rule, &cursor)
      }
      put(UInt8(ascii: "]"), &cursor)
    }
    put(UInt8(ascii: "]"), &cursor)
    put(UInt8(ascii: ","), &cursor)
    writeQuoted(content, rule: rule, &cursor)
    put(UInt8(ascii: "]"), &cursor)
    return cursor - output
  }

  @inline(__always)
  private static func put(_ byte: UInt8, _ cursor: inout UnsafeMutableRawPointer) {
    cursor.storeBytes(of: byte, as: UInt8.self)
    cursor += 1
  }

  private static func quotedCount(_ string: String, rule: NostrStringEscaper.Rule) -> Int {
    var string = string
    return string.withUTF8 { NostrStringEscaper.quotedCount(UnsafeRawBufferPointer($0), rule: rule) }
  }

  private static func writeQuoted(
    _ string: String, rule: NostrStringEscaper.Rule, _ cursor: inout UnsafeMutableRawPointer
  ) {
    var string = string
    let output = cursor
    cursor += string.withUTF8 {
      NostrStringEscaper.writeQuoted(UnsafeRawBufferPointer($0), rule: rule, to: output)
    }
  }

  /// The length of `value` in decimal, with its sign.
  private static func digitCount(_ value: Int64) -> Int {
    (value < 0 ? 1 : 0) + digitCount(magnitude: value.magnitude)
  }

  private static func digitCount(magnitude value: UInt64) -> Int {
    var count = 1
    var magnitude = value
    while magnitude >= 10 {
      magnitude /= 10
      count += 1
    }
    return count
  }

  private static func writeInteger(_ value: Int64, _ cursor: inout UnsafeMutableRawPointer) {
    if value < 0 { put(UInt8(ascii: "-"), &cursor) }
    let count = digitCount(magnitude: value.magnitude)
    var magnitude = value.magnitude
    var index = count
    repeat {
      index -= 1
      (cursor + index).storeBytes(
        of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10), as: UInt8.self)
      magnitude /= 10
    } while magnitude > 0
    cursor += count
  }
}

extension CanonicalSerializer {
  /// Writes the serialization under `rule` of the event `reader` located as `fields`, straight
  /// from the document's bytes, at `output`; the number of bytes written, or nil when a string's
  /// escapes or UTF-8 are invalid.
  ///
  /// The serialization is never longer than the document (names, quotes and whitespace go; an
  /// escape is never written longer than it was read), so `output` needs room for the document's
  /// size. A string without escapes is copied as it is (it holds no quote, backslash or control
  /// byte, so both rules write it unchanged); an escaped one is decoded and re-escaped in one pass.
  ///
  /// With `drain`, the output is a window rather than the whole serialization: after each tag
  /// element `drain` is called with the cursor and returns where writing goes on (having
  /// consumed what was written), so a window with room for the largest element plus its own
  /// margin suffices (the roster's streaming hash, `EventDocumentVerifier`); the count returned
  /// is then what the last window holds.
  static func write(
    _ fields: EventFields, of reader: EventFastReader, rule: NostrStringEscaper.Rule,
    to output: UnsafeMutableRawPointer, drain: ((UnsafeMutableRawPointer) -> UnsafeMutableRawPointer)? = nil
  ) -> Int? {
    var cursor = output
    put(UInt8(ascii: "["), &cursor)
    put(UInt8(ascii: "0"), &cursor)
    put(UInt8(ascii: ","), &cursor)
    put(UInt8(ascii: "\""), &cursor)
    cursor.copyMemory(
      from: reader.bytes(StringSpan(start: fields.pubkey, count: 64)).baseAddress!, byteCount: 64)
    cursor += 64
    put(UInt8(ascii: "\""), &cursor)
    put(UInt8(ascii: ","), &cursor)
    writeInteger(fields.createdAt, &cursor)
    put(UInt8(ascii: ","), &cursor)
    writeInteger(Int64(fields.kind), &cursor)
    put(UInt8(ascii: ","), &cursor)
    put(UInt8(ascii: "["), &cursor)
    var valid = true
    var afterValue = false
    reader.forEachTagElement(fields.tags) { element in
      switch element {
      case .open:
        if afterValue { put(UInt8(ascii: ","), &cursor) }
        put(UInt8(ascii: "["), &cursor)
        afterValue = false
      case .string(let span):
        if afterValue { put(UInt8(ascii: ","), &cursor) }
        valid = writeQuoted(span, of: reader, rule: rule, &cursor)
        afterValue = true
      case .close:
        put(UInt8(ascii: "]"), &cursor)
        afterValue = true
      }
      if let drain { cursor = drain(cursor) }
      return valid
    }
    guard valid else { return nil }
    put(UInt8(ascii: "]"), &cursor)
    put(UInt8(ascii: ","), &cursor)
    if let drain { cursor = drain(cursor) }
    guard writeQuoted(fields.content, of: reader, rule: rule, &cursor) else { return nil }
    put(UInt8(ascii: "]"), &cursor)
    return cursor - output
  }

  private static func writeQuoted(
    _ span: StringSpan, of reader: EventFastReader, rule: NostrStringEscaper.Rule,
    _ cursor: inout UnsafeMutableRawPointer
  ) -> Bool {
    let raw = reader.bytes(span)
    // The decoded text is valid UTF-8 exactly when its escaped form is (escapes are ASCII).
    guard span.ascii || UTF8Text.isValid(raw.baseAddress!, count: raw.count) else { return false }
    put(UInt8(ascii: "\""), &cursor)
    if span.escaped {
      guard
        case .success(let (_, count)) = JSONStringDecoder.decode(
          reader.documentBytes, from: span.start, into: cursor, escaping: rule)
      else { return false }
      cursor += count
    } else {
      cursor.copyMemory(from: raw.baseAddress!, byteCount: raw.count)
      cursor += raw.count
    }
    put(UInt8(ascii: "\""), &cursor)
    return true
  }
}
