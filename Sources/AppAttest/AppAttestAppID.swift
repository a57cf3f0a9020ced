import NostrEvent

/// An app id, `TEAMID.bundle.id`: the relying party App Attest binds keys to.
///
/// Parsed once: printable ASCII without spaces, at most 255 bytes, a non-empty team id, a dot and
/// a non-empty bundle id. `rpIDHash` is SHA-256 of its UTF-8 bytes.
public struct AppAttestAppID: Sendable, Hashable, CustomStringConvertible {
  /// The text, `TEAMID.bundle.id`.
  public let description: String
  /// SHA-256 of the text: the rpIdHash authenticator data must carry.
  public let rpIDHash: [UInt8]

  /// Validates `text`; `invalid_app_id` when it is not `TEAMID.bundle.id`.
  public init(_ text: String) throws(AppAttestError) {
    let bytes = Array(text.utf8)
    guard bytes.count <= 255, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
      let dot = bytes.firstIndex(of: UInt8(ascii: ".")), dot > 0, dot < bytes.count - 1
    else {
      throw AppAttestError(code: .invalidAppID, message: "not TEAMID.bundle.id in printable ASCII")
    }
    description = text
    rpIDHash = NostrSHA256.hash(bytes)
  }
}
