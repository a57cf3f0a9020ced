import NostrEvent

/// The notification's thread identifier: an opaque, stable hex string that groups notifications
/// of one channel on one relay for one account, and reveals none of those ids.
///
/// It is the SHA-256 of a domain-separated, length-prefixed encoding of (account, canonical relay
/// origin, channel id or none), so no two different triples can collide by concatenation.
package enum ThreadIdentifier {
  /// The domain separator hashed before the fields; a new version gets a new separator.
  static let domain = "nostr-push-kit/thread-identifier/v1"

  /// The identifier of `channelID` (nil for a message outside any channel) on `relay` for
  /// `account`.
  package static func make(account: String, relay: RelayOrigin, channelID: String?) -> String {
    var input: [UInt8] = []
    append(domain, to: &input)
    append(account.lowercased(), to: &input)
    append(relay.description, to: &input)
    if let channelID {
      input.append(1)
      append(channelID, to: &input)
    } else {
      input.append(0)
    }
    return Hex.encode(NostrSHA256.hash(input))
  }

  /// The domain separator of a social thread's identifier (a note and what answers it).
  static let noteDomain = "nostr-push-kit/thread-identifier/note/v1"

  /// The identifier of the social thread of `note` (a root or target event id) on `relay` for
  /// `account`: a reaction and a zap to one note, and the replies of one thread, group together.
  package static func make(account: String, relay: RelayOrigin, note: String) -> String {
    var input: [UInt8] = []
    append(noteDomain, to: &input)
    append(account.lowercased(), to: &input)
    append(relay.description, to: &input)
    append(note.lowercased(), to: &input)
    return Hex.encode(NostrSHA256.hash(input))
  }

  /// The domain separator of a direct-message conversation's identifier.
  static let directMessageDomain = "nostr-push-kit/thread-identifier/dm/v1"

  /// The identifier of the direct-message conversation of `participants` (the rumor's author and
  /// `p` tags, the account among them) for `account`: the same for every message of that set,
  /// whichever of them wrote it and in whatever order the tags name them.
  package static func make(account: String, conversation participants: [String]) -> String {
    var input: [UInt8] = []
    append(directMessageDomain, to: &input)
    append(account.lowercased(), to: &input)
    append("dm", to: &input)
    for participant in Set(participants.map { $0.lowercased() }).sorted() {
      append(participant, to: &input)
    }
    return Hex.encode(NostrSHA256.hash(input))
  }

  private static func append(_ field: String, to input: inout [UInt8]) {
    let bytes = Array(field.utf8)
    let length = UInt32(bytes.count)
    input.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) })
    input.append(contentsOf: bytes)
  }
}
