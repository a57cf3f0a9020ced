import Foundation

/// NIP-98 HTTP auth: a signed kind-27235 event in the `Authorization` header.
///
/// Clients call `authorizationHeader` for each request; servers check headers with a
/// `NIP98Verifier`, which also remembers ids to refuse replays.
public enum NIP98 {
  /// The event kind of a NIP-98 auth event.
  public static let kind = EventKind.httpAuthorization
  /// How many random bytes the `nonce` tag carries, so that two headers never share an id.
  package static let nonceByteCount = 16

  /// The header value `Nostr <base64>` authorising `method` on the absolute `url`, with a
  /// `payload` tag when `body` is non-empty and a fresh random `nonce` tag.
  public static func authorizationHeader(
    url: String, method: String, body: [UInt8]?, key: SecretKey, now: Int64
  ) throws(EventError) -> String {
    let event = try authEvent(url: url, method: method, body: body, key: key, now: now)
    return "Nostr " + Data(event.jsonBytes()).base64EncodedString()
  }

  /// The signed auth event that `authorizationHeader` encodes.
  package static func authEvent(
    url: String, method: String, body: [UInt8]?, key: SecretKey, now: Int64
  ) throws(EventError) -> Event {
    var tags: [[String]] = [["u", url], ["method", method.uppercased()]]
    if let body, !body.isEmpty {
      tags.append(["payload", Hex.encode(NostrSHA256.hash(body))])
    }
    tags.append(["nonce", Hex.encode(SystemRandom.bytes(nonceByteCount))])
    let unsigned = UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: now, kind: kind, tags: tags, content: "")
    return try unsigned.signed(with: key)
  }
}
