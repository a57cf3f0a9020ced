import NostrJSON

/// The outcome of checking an event's id and signature.
///
/// An event that parsed is either valid (and says which escaping rule its id matched), or has
/// an id that is not the hash of its content, or a signature that does not verify.
public enum EventVerification: Sendable, Hashable {
  /// The id matches the serialization under the given rule and the signature verifies.
  case valid(NostrStringEscaper.Rule)
  /// The id is not the SHA-256 of the canonical serialization under either rule.
  case idMismatch
  /// The signature does not verify for the id and pubkey (or the pubkey is not a curve point).
  case badSignature

  /// Whether the event is valid.
  public var isValid: Bool {
    if case .valid = self { return true }
    return false
  }
}
