import NostrPushCore

/// A verified membership-style event (a roster: `d` and many `p` tags) read from an answer
/// without materialising its tags: its `p` values go straight into a compact set of 32-byte keys.
///
/// What `notification-resolver.md` §1 asks of a kind 39002: never an array of tag arrays, at most
/// `maxKept` keys kept (in event order), the distinct total counted.
package struct RosterReading: Sendable, Hashable {
  /// The event's id (64 lowercase hex).
  package var id: String
  /// The event's author (64 lowercase hex).
  package var pubkey: String
  /// The event's `created_at`.
  package var createdAt: Int64
  /// The event's kind.
  package var kind: Int
  /// The first `d` tag's value, when there is one.
  package var channelID: String?
  /// The first `maxKept` distinct `p` keys in event order, 32 bytes each, back to back.
  package var keptKeys: [UInt8]
  /// The number of distinct `p` keys in the event.
  package var distinctCount: Int
  /// Whether a `p` value is not 64 lowercase hex (such a roster is rejected by its record).
  package var hasMalformedKey: Bool
}

/// A 32-byte key held inline, for a set of keys without one allocation per key.
struct Key32: Hashable, Comparable {
  var words: (UInt64, UInt64, UInt64, UInt64)

  init(_ bytes: UnsafeRawBufferPointer) {
    words = (
      bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
      bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
      bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
      bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
    )
  }

  static func == (lhs: Key32, rhs: Key32) -> Bool {
    lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
      && lhs.words.3 == rhs.words.3
  }

  static func < (lhs: Key32, rhs: Key32) -> Bool {
    (lhs.words.0, lhs.words.1, lhs.words.2, lhs.words.3) < (
      rhs.words.0, rhs.words.1, rhs.words.2, rhs.words.3
    )
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(words.0)
    hasher.combine(words.1)
    hasher.combine(words.2)
    hasher.combine(words.3)
  }
}

extension EventFastReader {
  /// The verified events of a JSON array of roster-style events, each read in place: located
  /// within `limits`, its id and signature checked from the located bytes (`EventDocumentVerifier`,
  /// the serialization written once into one buffer), its `d` value and `p` keys collected while
  /// its tags are walked. An element outside the common shape, over a bound or that does not
  /// verify is dropped. Nil when the body is not a JSON array.
  package static func readRosters(
    _ buffer: UnsafeRawBufferPointer, maxBytes: Int, limits: EventReadLimits, maxKept: Int
  ) -> [RosterReading]? {
    guard buffer.count <= maxBytes, buffer.baseAddress != nil else { return nil }
    var reader = EventFastReader(buffer)
    reader.limits = limits
    reader.skipWhitespace()
    guard reader.take(UInt8(ascii: "[")) else { return nil }
    var readings: [RosterReading] = []
    let verifier = EventDocumentVerifier()
    reader.skipWhitespace()
    if !reader.take(UInt8(ascii: "]")) {
      repeat {
        reader.skipWhitespace()
        let start = reader.position
        if let fields = reader.readFields() {
          if case .valid = verifier.verify(fields, of: reader),
            let reading = reader.rosterReading(fields, maxKept: maxKept)
          {
            readings.append(reading)
          }
        } else {
          reader.position = start
          guard reader.skipValue(depth: 0) else { return nil }
        }
        reader.skipWhitespace()
      } while reader.take(UInt8(ascii: ","))
      guard reader.take(UInt8(ascii: "]")) else { return nil }
    }
    reader.skipWhitespace()
    return reader.position == reader.end ? readings : nil
  }

  /// The roster reading of located, verified fields; nil when the `d` value is not valid UTF-8.
  private func rosterReading(_ fields: EventFields, maxKept: Int) -> RosterReading? {
    var reading = RosterReading(
      id: hexText(fields.id, count: 64), pubkey: hexText(fields.pubkey, count: 64),
      createdAt: fields.createdAt,
      kind: fields.kind, channelID: nil, keptKeys: [], distinctCount: 0, hasMalformedKey: false)
    // The first `maxKept` distinct keys, in event order, through a set of at most that many; the
    // distinct total by sorting every key once at the end (one inline array, no hash table of
    // every member).
    var kept = Set<Key32>(minimumCapacity: min(maxKept, fields.tagCount))
    var all: [Key32] = []
    all.reserveCapacity(fields.tagCount)
    var position = 0
    var name: UInt8 = 0
    var failed = false
    withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { key in
      forEachTagElement(fields.tags) { element in
        switch element {
        case .open:
          position = 0
          name = 0
        case .string(let span):
          defer { position += 1 }
          if position == 0 {
            name = span.count == 1 && !span.escaped ? bytes(span)[0] : 0
          } else if position == 1, name == UInt8(ascii: "p") {
            let text = bytes(span)
            guard span.count == 64, !span.escaped, text.allSatisfy(Self.isLowercaseHex),
              Hex.decode(utf8: text, into: key)
            else {
              reading.hasMalformedKey = true
              return true
            }
            let value = Key32(UnsafeRawBufferPointer(key))
            all.append(value)
            if kept.count < maxKept, kept.insert(value).inserted {
              reading.keptKeys += UnsafeRawBufferPointer(key)
            }
          } else if position == 1, name == UInt8(ascii: "d"), reading.channelID == nil {
            guard let value = string(span) else {
              failed = true
              return false
            }
            reading.channelID = value
          }
        case .close:
          break
        }
        return true
      }
    }
    guard !failed else { return nil }
    all.sort()
    reading.distinctCount = all.indices.reduce(0) { count, index in
      index == 0 || all[index] != all[index - 1] ? count + 1 : count
    }
    return reading
  }

  private static func isLowercaseHex(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
      || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
  }

  private func hexText(_ offset: Int, count: Int) -> String {
    String(
      decoding: UnsafeRawBufferPointer(rebasing: documentBytes[offset..<(offset + count)]), as: UTF8.self)
  }
}
