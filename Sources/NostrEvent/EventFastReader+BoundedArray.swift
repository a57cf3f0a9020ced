import NostrJSON

/// The events a bounded read of a JSON array kept, and how many elements it dropped.
package struct BoundedEvents: Sendable {
  /// The kept events, in order (not yet verified).
  package var events: [Event]
  /// Elements dropped: over a bound of ``EventReadLimits``, past the answer's tag total, or not
  /// an event (and the element a cut answer ended in, counted as one).
  package var dropped: Int
  /// True when the answer was cut at its byte cap before its array closed.
  package var cut = false
}

extension EventFastReader {
  /// The most nesting a skipped element may have.
  static let maxSkipDepth = 64

  /// The events of a JSON array read element by element within `limits`: each element is located
  /// first and materialised only when it keeps within every bound (an element outside the common
  /// shape is read the general way only when it is at most `limits.maxGeneralElementBytes`), so
  /// a bad or oversized element is dropped, never fatal, and never built. Nil when the body is
  /// not a JSON array (or not JSON).
  ///
  /// `isCut` says the buffer is the first bytes of a longer answer (a response cut at its byte
  /// cap): the array then need not close, every whole element before the cut is read as usual,
  /// and the reading ends at the first element that does not read whole — it, and whatever
  /// followed it, is dropped and counted as one (`BoundedEvents.cut`), so one oversized element
  /// cannot cost the events before it (`Docs/NotificationServiceExtension.md`).
  package static func readArray(
    _ buffer: UnsafeRawBufferPointer, maxBytes: Int, limits: EventReadLimits, isCut: Bool = false
  ) -> BoundedEvents? {
    guard buffer.count <= maxBytes, buffer.baseAddress != nil else { return nil }
    var reader = EventFastReader(buffer)
    reader.limits = limits
    reader.skipWhitespace()
    guard reader.take(UInt8(ascii: "[")) else { return nil }
    var result = BoundedEvents(events: [], dropped: 0)
    var totalTags = 0
    reader.skipWhitespace()
    if !reader.take(UInt8(ascii: "]")) {
      repeat {
        reader.skipWhitespace()
        guard case .read(let event) = reader.readBoundedElement(limits, totalTags: totalTags) else {
          guard isCut else { return nil }
          result.dropped += 1
          result.cut = true
          return result
        }
        if let event {
          totalTags += event.tags.count
          result.events.append(event)
        } else {
          result.dropped += 1
        }
        reader.skipWhitespace()
      } while reader.take(UInt8(ascii: ","))
      guard reader.take(UInt8(ascii: "]")) else {
        guard isCut, reader.position == reader.end else { return nil }
        result.cut = true
        return result
      }
    }
    reader.skipWhitespace()
    return reader.position == reader.end ? result : nil
  }

  /// What reading one element within limits gave.
  enum BoundedElement {
    /// The element was read: its event, or nil when it was dropped (over a bound, past
    /// `maxTotalTags` with `totalTags` already kept, or not an event).
    case read(Event?)
    /// The element is not JSON (or nests too deep to skip).
    case notJSON
  }

  /// Reads the element at the current position within `limits` (`totalTags` tags already kept
  /// by the answer): located first, materialised only when it keeps within every bound, an
  /// element outside the common shape read the general way only when it is small; the position
  /// is left after the element.
  mutating func readBoundedElement(_ limits: EventReadLimits, totalTags: Int) -> BoundedElement {
    let start = position
    exceededLimit = false
    if let fields = readFields() {
      return .read(totalTags + fields.tagCount <= limits.maxTotalTags ? event(fields) : nil)
    }
    let overBound = exceededLimit
    position = start
    guard skipValue(depth: 0) else { return .notJSON }
    guard !overBound, position - start <= limits.maxGeneralElementBytes else { return .read(nil) }
    return .read(
      generalEvent(start..<position).flatMap { candidate in
        limits.admits(candidate) && totalTags + candidate.tags.count <= limits.maxTotalTags ? candidate : nil
      })
  }

  /// The event of the element in `range` read by the strict reader and `Event(jsonValue:)`, or nil.
  private func generalEvent(_ range: Range<Int>) -> Event? {
    let bytes = UnsafeRawBufferPointer(rebasing: documentBytes[range])
    guard let value = try? JSONReader(maxBytes: bytes.count).read(bytes) else { return nil }
    return try? Event(jsonValue: value)
  }

  /// Steps over one JSON value of any kind without building it; false when it is not JSON (as
  /// far as its structure goes: strings' escapes and UTF-8 are checked only if the value is read)
  /// or nests deeper than ``maxSkipDepth``.
  mutating func skipValue(depth: Int) -> Bool {
    guard depth < Self.maxSkipDepth, position < end else { return false }
    switch byte(at: position) {
    case UInt8(ascii: "\""):
      return readString() != nil
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      let isObject = byte(at: position) == UInt8(ascii: "{")
      position += 1
      skipWhitespace()
      if take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) { return true }
      repeat {
        skipWhitespace()
        if isObject {
          guard readString() != nil else { return false }
          skipWhitespace()
          guard take(UInt8(ascii: ":")) else { return false }
          skipWhitespace()
        }
        guard skipValue(depth: depth + 1) else { return false }
        skipWhitespace()
      } while take(UInt8(ascii: ","))
      return take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    case UInt8(ascii: "t"): return skipLiteral("true")
    case UInt8(ascii: "f"): return skipLiteral("false")
    case UInt8(ascii: "n"): return skipLiteral("null")
    default:
      let start = position
      var digits = 0
      while position < end {
        let next = byte(at: position)
        if next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") {
          digits += 1
        } else if !"-+.eE".utf8.contains(next) {
          break
        }
        position += 1
      }
      return digits > 0 && position > start
    }
  }

  private mutating func skipLiteral(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard end - position >= count else { return false }
    for index in 0..<count where byte(at: position + index) != literal.utf8Start[index] { return false }
    position += count
    return true
  }
}
