import NostrEvent
import NostrJSON

/// One NIP-01/NIP-42 message a client sends a relay (`EVENT`, `REQ`, `CLOSE`, `AUTH`), read once
/// with the refusals every relay here answers: the service's ``ClientSession`` and the fixture
/// relay of `NostrPushTesting` both read frames through it.
///
/// A frame that is not a JSON array with a message type, an unknown type, or a message of the
/// wrong shape is refused with the `NOTICE` text; a `REQ` whose filters are wrong is refused per
/// subscription by ``filters(_:subscription:maxFilters:)`` with the `CLOSED` text.
public enum ClientMessage: Sendable, Hashable {
  /// The longest subscription id accepted.
  public static let maxSubscriptionIDLength = 64

  /// `["EVENT",{…}]`: the event object, not yet parsed.
  case event(JSONValue)
  /// `["REQ",subscription,filter…]`: the subscription id (1 to 64 characters) and the raw filters.
  case request(subscription: String, filters: [JSONValue])
  /// `["CLOSE",subscription]`.
  case close(subscription: String)
  /// `["AUTH",{…}]`: the event object, checked by ``NIP42Check``.
  case auth(JSONValue)

  /// Reads one frame with `reader`; the `NOTICE` text when it is no message of these four.
  public static func read(_ bytes: [UInt8], reader: JSONReader = JSONReader(maxDepth: 8)) -> Result<
    ClientMessage, Refusal
  > {
    guard case .array(let elements)? = try? reader.read(bytes), let type = elements.first?.stringValue else {
      return .failure(Refusal("invalid: not a JSON array with a message type"))
    }
    switch type {
    case "EVENT":
      guard elements.count == 2, case .object = elements[1] else {
        return .failure(Refusal("invalid: EVENT takes one event object"))
      }
      return .success(.event(elements[1]))
    case "AUTH":
      guard elements.count == 2, case .object = elements[1] else {
        return .failure(Refusal("invalid: AUTH takes one event object"))
      }
      return .success(.auth(elements[1]))
    case "REQ":
      guard elements.count >= 2, let subscription = elements[1].stringValue,
        (1...maxSubscriptionIDLength).contains(subscription.count)
      else { return .failure(Refusal("invalid: REQ needs a subscription id of 1 to 64 characters")) }
      return .success(.request(subscription: subscription, filters: Array(elements.dropFirst(2))))
    case "CLOSE":
      guard elements.count == 2, let subscription = elements[1].stringValue else {
        return .failure(Refusal("invalid: CLOSE takes one subscription id"))
      }
      return .success(.close(subscription: subscription))
    default:
      return .failure(Refusal("invalid: unknown message type \(type)"))
    }
  }

  /// The filters of a `REQ`, each parsed and validated; the `CLOSED` text for the first problem
  /// (not 1 to `maxFilters` filters, or a filter NIP-01 refuses).
  public static func filters(_ raw: [JSONValue], maxFilters: Int) -> Result<[Filter], Refusal> {
    guard (1...maxFilters).contains(raw.count) else {
      return .failure(Refusal("invalid: REQ takes 1 to \(maxFilters) filters"))
    }
    var filters: [Filter] = []
    for (index, element) in raw.enumerated() {
      do {
        filters.append(try Filter(jsonValue: element))
      } catch {
        return .failure(Refusal("invalid: filter [\(index)] \(error.field ?? ""): \(error.message)"))
      }
    }
    return .success(filters)
  }

  /// The id of an event object when it is 64 hex characters (lower-cased), for an `OK`.
  public static func readableID(_ value: JSONValue) -> String? {
    value.objectValue?["id"]?.stringValue.flatMap { NostrID($0)?.hex }
  }

  /// Why a message was refused: the `NOTICE` or `CLOSED` text.
  public struct Refusal: Error, Sendable, Hashable {
    /// The text sent back (`invalid: …`).
    public let message: String
    init(_ message: String) { self.message = message }
  }
}
