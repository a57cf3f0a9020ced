import NostrEvent
import NostrJSON

/// The NIP-01 messages a relay sends, written once: `OK`, `EVENT`, `EOSE`, `CLOSED`, `NOTICE`,
/// `AUTH`.
public enum RelayMessages {
  /// `["NOTICE",text]`.
  public static func notice(_ text: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("NOTICE"), .string(text)]))
  }

  /// `["CLOSED",subscription,text]`.
  public static func closed(_ subscription: String, _ text: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("CLOSED"), .string(subscription), .string(text)]))
  }

  /// `["OK",id,accepted,text]`.
  public static func ok(_ id: String, _ accepted: Bool, _ text: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("OK"), .string(id), .bool(accepted), .string(text)]))
  }

  /// `["EOSE",subscription]`.
  public static func endOfStoredEvents(_ subscription: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("EOSE"), .string(subscription)]))
  }

  /// `["EVENT",subscription,event]`.
  public static func event(_ subscription: String, _ event: Event) -> [UInt8] {
    JSONWriter.bytes(.array([.string("EVENT"), .string(subscription), event.jsonValue]))
  }

  /// `["EVENT",subscription,event]` around an event's JSON already written (as stored).
  public static func event(_ subscription: String, json: [UInt8]) -> [UInt8] {
    var output = Array("[\"EVENT\",".utf8)
    NostrStringEscaper.appendQuoted(subscription, to: &output)
    output.append(UInt8(ascii: ","))
    output.append(contentsOf: json)
    output.append(UInt8(ascii: "]"))
    return output
  }

  /// `["AUTH",challenge]`.
  public static func challenge(_ challenge: String) -> [UInt8] {
    JSONWriter.bytes(.array([.string("AUTH"), .string(challenge)]))
  }
}
