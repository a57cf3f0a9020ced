import NostrJSON

extension Event {
  /// Checks the id, then the signature: the id is recomputed from the canonical serialization
  /// (the common escaping first, the literal NIP-01 form only when a string needs it), then the
  /// BIP-340 signature is checked over the id with the pubkey.
  public func verify() -> EventVerification {
    withUnsafeTemporaryAllocation(byteCount: 160, alignment: 16) { scratch in
      let idBytes = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<32])
      let keyBytes = UnsafeMutableRawBufferPointer(rebasing: scratch[32..<64])
      let sigBytes = UnsafeMutableRawBufferPointer(rebasing: scratch[64..<128])
      let digest = UnsafeMutableRawBufferPointer(rebasing: scratch[128..<160])
      guard Hex.decode(id, into: idBytes), Hex.decode(pubkey, into: keyBytes),
        Hex.decode(sig, into: sigBytes)
      else { return .idMismatch }
      var rule = NostrStringEscaper.Rule.common
      hashSerialization(rule: .common, into: digest)
      if !digest.elementsEqual(idBytes) {
        guard needsLiteralForm else { return .idMismatch }
        rule = .literal
        hashSerialization(rule: .literal, into: digest)
        guard digest.elementsEqual(idBytes) else { return .idMismatch }
      }
      let signed = Secp256k1.verify(
        signature: UnsafeRawBufferPointer(sigBytes), message: UnsafeRawBufferPointer(idBytes),
        publicKey: UnsafeRawBufferPointer(keyBytes))
      return signed ? .valid(rule) : .badSignature
    }
  }

  /// The canonical serialization under `rule` (the bytes whose SHA-256 is the id).
  package func canonicalBytes(rule: NostrStringEscaper.Rule = .common) -> [UInt8] {
    CanonicalSerializer.bytes(
      pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule)
  }

  /// The id the event's fields hash to under `rule`, as lowercase hex.
  package func computedID(rule: NostrStringEscaper.Rule = .common) -> String {
    Hex.encode(
      CanonicalSerializer.id(
        pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule))
  }

  /// Whether some string holds a character the two escaping rules write differently.
  var needsLiteralForm: Bool { Self.needsLiteralForm(tags: tags, content: content) }

  /// Whether `tags` or `content` hold a character the two escaping rules write differently
  /// (shared with a rumor's id check, `UnsignedEvent.hasID`).
  static func needsLiteralForm(tags: [[String]], content: String) -> Bool {
    NostrStringEscaper.rulesDiffer(for: content)
      || tags.contains { $0.contains { NostrStringEscaper.rulesDiffer(for: $0) } }
  }

  private func hashSerialization(rule: NostrStringEscaper.Rule, into digest: UnsafeMutableRawBufferPointer) {
    CanonicalSerializer.hash(
      pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule, into: digest
    )
  }
}
