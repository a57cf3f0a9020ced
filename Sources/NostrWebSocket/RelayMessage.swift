import NostrJSON

/// One NIP-01 message from a relay, by shape; nil from `parse` for anything else.
///
/// The parser checks the array shape only (types and counts); what an event means is the
/// connection's business. It reads with the suite's one strict JSON reader, so duplicate keys,
/// bad UTF-8 and over-deep nesting never reach a caller.
package enum RelayMessage: Sendable, Hashable {
  /// `["EVENT",<sub>,<event object>]`.
  case event(subscription: String, event: JSONValue)
  /// `["OK",<event id>,<accepted>,<message>]` (a missing message is `""`).
  case ok(eventID: String, accepted: Bool, message: String)
  /// `["EOSE",<sub>]`.
  case endOfStoredEvents(subscription: String)
  /// `["CLOSED",<sub>,<message>]` (a missing message is `""`).
  case closed(subscription: String, message: String)
  /// `["NOTICE",<message>]`.
  case notice(String)
  /// `["AUTH",<challenge>]`.
  case auth(challenge: String)

  /// The deepest nesting read: an event's tags sit at depth 4, so 8 leaves room and no more.
  package static let maxDepth = 8

  /// The message in `bytes`, or nil when it is not JSON, not an array, of an unknown type or
  /// of the wrong shape.
  package static func parse(_ bytes: [UInt8]) -> RelayMessage? {
    guard case .array(let elements)? = try? JSONReader(maxDepth: maxDepth).read(bytes),
      let type = elements.first?.stringValue
    else { return nil }
    switch (type, elements.count) {
    case ("EVENT", 3):
      guard let subscription = elements[1].stringValue, case .object = elements[2] else { return nil }
      return .event(subscription: subscription, event: elements[2])
    case ("OK", 3), ("OK", 4):
      guard let id = elements[1].stringValue, let accepted = elements[2].boolValue else { return nil }
      let message = elements.count == 4 ? elements[3].stringValue : ""
      guard let message else { return nil }
      return .ok(eventID: id, accepted: accepted, message: message)
    case ("EOSE", 2):
      return elements[1].stringValue.map { .endOfStoredEvents(subscription: $0) }
    case ("CLOSED", 2), ("CLOSED", 3):
      guard let subscription = elements[1].stringValue else { return nil }
      let message = elements.count == 3 ? elements[2].stringValue : ""
      guard let message else { return nil }
      return .closed(subscription: subscription, message: message)
    case ("NOTICE", 2):
      return elements[1].stringValue.map { .notice($0) }
    case ("AUTH", 2):
      return elements[1].stringValue.map { .auth(challenge: $0) }
    default:
      return nil
    }
  }
}
