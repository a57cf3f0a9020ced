/// An `["EVENT",<subscription>,<event>]` relay message read within limits: the subscription,
/// and the event unless it was dropped.
package struct EventMessageReading: Sendable {
  /// The message's subscription id.
  package var subscription: String
  /// The event, or nil when it was dropped: over a bound of the subscription's limits, past its
  /// answer's tag total, not an event, or in a message of the wrong shape.
  package var event: Event?
}

extension EventFastReader {
  /// The relay message in `buffer` read the bounded way when it is an `EVENT` message for a
  /// subscription `limits` gives bounds for: the event element is located first and materialised
  /// only within those bounds (`readBoundedElement`, as for `/query` answers), with `totalTags`
  /// tags already kept by the subscription's answer. The message is never built as a JSON tree.
  ///
  /// Nil when the message does not start `["EVENT",<string>,` or `limits` gives no bounds for
  /// that subscription: the caller parses it the general way. Once the bounds apply, anything
  /// malformed after them gives a reading without an event (dropped, never parsed again).
  package static func readEventMessage(
    _ buffer: UnsafeRawBufferPointer, limits: (String) -> (EventReadLimits, totalTags: Int)?
  ) -> EventMessageReading? {
    guard buffer.baseAddress != nil else { return nil }
    var reader = EventFastReader(buffer)
    reader.skipWhitespace()
    guard reader.take(UInt8(ascii: "[")) else { return nil }
    reader.skipWhitespace()
    guard let type = reader.readString(), !type.escaped,
      reader.bytes(type).elementsEqual("EVENT".utf8)
    else { return nil }
    reader.skipWhitespace()
    guard reader.take(UInt8(ascii: ",")) else { return nil }
    reader.skipWhitespace()
    guard let span = reader.readString(), let subscription = reader.string(span),
      let (bounds, totalTags) = limits(subscription)
    else { return nil }
    var reading = EventMessageReading(subscription: subscription, event: nil)
    reader.limits = bounds
    reader.skipWhitespace()
    guard reader.take(UInt8(ascii: ",")) else { return reading }
    reader.skipWhitespace()
    guard case .read(let event) = reader.readBoundedElement(bounds, totalTags: totalTags) else {
      return reading
    }
    reader.skipWhitespace()
    guard reader.take(UInt8(ascii: "]")) else { return reading }
    reader.skipWhitespace()
    if reader.position == reader.end { reading.event = event }
    return reading
  }
}
