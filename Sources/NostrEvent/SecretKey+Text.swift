import Bech32

extension SecretKey {
  /// The longest key text read, in UTF-8 bytes (a key file with a comment line or two still fits).
  package static let maxTextBytes = 4096

  /// Reads a secret key as people store it: 64 hex characters (either case) or an `nsec1…`
  /// (NIP-19), surrounding whitespace trimmed.
  ///
  /// Use it for a key file or a pasted key; the key is checked to be in [1, n−1].
  ///
  /// - Throws: `invalid_field` (field `secret_key`) for anything else.
  public convenience init(parsing text: String) throws(EventError) {
    guard text.utf8.count <= Self.maxTextBytes else {
      throw .invalid("secret_key", "longer than \(Self.maxTextBytes) bytes")
    }
    let trimmed = text.trimmingKeyWhitespace()
    if trimmed.lowercased().hasPrefix("nsec1") {
      guard case .nsec(let hex)? = try? NIP19Entity(decoding: trimmed) else {
        throw .invalid("secret_key", "not a valid nsec")
      }
      try self.init(hex: hex)
    } else if trimmed.utf8.count == 64 {
      try self.init(hex: trimmed)
    } else {
      throw .invalid("secret_key", "not 64 hex characters or a valid nsec")
    }
  }
}

extension String {
  /// The string without leading and trailing white space and line breaks (CRLF included).
  fileprivate func trimmingKeyWhitespace() -> String {
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }
}
