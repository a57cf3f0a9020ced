/// NIP-11's request rule, written once for the service and the fixture relay: a `GET /` is a
/// request for the relay information document when its `Accept` names the media type
/// `application/nostr+json` (any case, among others, parameters ignored).
public enum InformationRequest {
  /// The NIP-11 media type, also the document's `Content-Type`.
  public static let mediaType = "application/nostr+json"

  /// Whether an `Accept` header value (nil when absent) asks for the NIP-11 document.
  public static func accepts(_ accept: String?) -> Bool {
    (accept ?? "").lowercased().split(separator: ",").contains { range in
      guard let type = range.split(separator: ";", omittingEmptySubsequences: false).first else {
        return false
      }
      let isSpace = { (character: Character) in character == " " || character == "\t" }
      return String(type.drop(while: isSpace).reversed().drop(while: isSpace).reversed()) == mediaType
    }
  }
}
