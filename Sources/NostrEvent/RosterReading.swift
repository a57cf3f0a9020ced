import Foundation
import NostrPushCore

/// A verified membership-style event (a roster: `d` and many `p` tags) read from an answer
/// without materialising its tags: its `p` values go straight into a compact set of 32-byte keys.
///
/// What `Docs/NotificationServiceExtension.md` asks of a kind 39002: never an array of tag arrays, at most
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

extension EventFastReader {
  /// The verified events of a JSON array of roster-style events, each read in place: located
  /// within `limits`, its id and signature checked from the located bytes (`EventDocumentVerifier`,
  /// the serialization written once into one buffer), its `d` value and `p` keys collected while
  /// its tags are walked. An element outside the common shape, over a bound or that does not
  /// verify is dropped. Nil when the body is not a JSON array.
  package static func readRosters(
    _ buffer: UnsafeRawBufferPointer, maxBytes: Int, limits: EventReadLimits, maxKept: Int
  ) -> [RosterReading]? {
    // Keys are noted by 32-bit offsets into the answer.
    guard buffer.count <= maxBytes, buffer.count <= Int(UInt32.max), buffer.baseAddress != nil else {
      return nil
    }
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
  ///
  /// Memory (`Docs/NotificationServiceExtension.md`, `Docs/Performance.md`'s extension row): the `p` values
  /// are never copied out of the answer while it is walked. Each valid one is noted by its
  /// offset in the answer (4 bytes a member, not a 32-byte key and a hash table slot); the
  /// offsets are sorted by the hex they point at (lowercase hex sorts as its bytes do), which
  /// gives the distinct total and each key's first occurrence, and only the first `maxKept`
  /// distinct keys, in event order, are decoded into `keptKeys` (reserved once, never grown).
  private func rosterReading(_ fields: EventFields, maxKept: Int) -> RosterReading? {
    var reading = RosterReading(
      id: hexText(fields.id, count: 64), pubkey: hexText(fields.pubkey, count: 64),
      createdAt: fields.createdAt,
      kind: fields.kind, channelID: nil, keptKeys: [], distinctCount: 0, hasMalformedKey: false)
    var offsets: [UInt32] = []
    offsets.reserveCapacity(fields.tagCount)
    var position = 0
    var name: UInt8 = 0
    var failed = false
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
          guard span.count == 64, !span.escaped, bytes(span).allSatisfy(Self.isLowercaseHex) else {
            reading.hasMalformedKey = true
            return true
          }
          offsets.append(UInt32(span.start))
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
    guard !failed else { return nil }
    let firsts = Self.firstOccurrences(&offsets, in: documentBytes)
    reading.distinctCount = firsts
    let keptCount = min(firsts, maxKept)
    reading.keptKeys = [UInt8](unsafeUninitializedCapacity: keptCount * 32) { keys, initialized in
      for index in 0..<keptCount {
        let text = UnsafeRawBufferPointer(
          rebasing: documentBytes[Int(offsets[index])..<(Int(offsets[index]) + 64)])
        let key = UnsafeMutableBufferPointer(rebasing: keys[(index * 32)..<(index * 32 + 32)])
        _ = Hex.decode(utf8: text, into: UnsafeMutableRawBufferPointer(key))
      }
      initialized = keptCount * 32
    }
    return reading
  }

  /// Reorders `offsets` (each that of 64 lowercase hex digits in `document`, in event order) so
  /// that its first elements are the first occurrence of each distinct key, in event order, and
  /// returns how many there are.
  static func firstOccurrences(_ offsets: inout [UInt32], in document: UnsafeRawBufferPointer) -> Int {
    let base = document.baseAddress!
    // By key, then by offset: the first of each run of equal keys is its first occurrence.
    offsets.sort { lhs, rhs in
      let order = memcmp(base + Int(lhs), base + Int(rhs), 64)
      return order != 0 ? order < 0 : lhs < rhs
    }
    var distinct = 0
    for index in offsets.indices
    where index == 0 || memcmp(base + Int(offsets[index]), base + Int(offsets[index - 1]), 64) != 0 {
      offsets[distinct] = offsets[index]
      distinct += 1
    }
    offsets[0..<distinct].sort()
    return distinct
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
