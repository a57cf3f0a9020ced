import NostrEvent
import NostrPushCore

/// NIP-44 version 2 encrypted payloads: ECDH conversation keys, ChaCha20, HMAC-SHA256 and the
/// padding scheme, exact to the official vectors.
///
/// A push lease's private part travels in this form from the account to the relay's push key.
/// Version 2 only (no NIP-04, no version 1, no extended length prefix). Nothing here has mutable
/// state, so any call may run on any thread at once. The caller verifies the outer event's id and
/// signature before decrypting: the MAC proves only that one of the two key holders wrote the
/// payload.
public enum NIP44 {
  /// The version byte of every payload written and the only one read.
  package static let version: UInt8 = 2
  /// The shortest plaintext, in UTF-8 bytes.
  package static let minPlaintextBytes = 1
  /// The longest plaintext, in UTF-8 bytes (the official vectors refuse 65 536).
  package static let maxPlaintextBytes = 65_535
  /// The length of a nonce.
  package static let nonceBytes = 32
  /// The length of a MAC.
  package static let macBytes = 32
  /// The shortest payload, in characters (a 1-byte plaintext).
  package static let minPayloadCharacters = 132
  /// The longest payload, in characters (a 65 535-byte plaintext).
  package static let maxPayloadCharacters = 87_472
  /// The shortest decoded payload: version, nonce, 2 + 32 bytes of ciphertext, MAC.
  package static let minPayloadBytes = 99
  /// The longest decoded payload: version, nonce, 2 + 65 536 bytes of ciphertext, MAC.
  package static let maxPayloadBytes = 65_603

  /// The payload of `plaintext` for the holder of the other key of `conversationKey`, with a
  /// fresh random nonce.
  ///
  /// The nonce comes from the system generator on every call, never from the content, so two
  /// encryptions of one text differ. Throws `invalid_plaintext_length` outside 1…65 535 bytes.
  public static func encrypt(_ plaintext: String, conversationKey: ConversationKey) throws(NIP44Error)
    -> String
  {
    var nonce = SystemRandom.bytes(nonceBytes)
    defer { SystemRandom.wipe(&nonce) }
    return try encrypt(plaintext, conversationKey: conversationKey, nonce: nonce)
  }

  /// The payload of `plaintext` with a given 32-byte nonce, for the vectors and the CLI's
  /// `--nonce`; `package` so that an app cannot pin a nonce by mistake.
  package static func encrypt(
    _ plaintext: String, conversationKey: ConversationKey, nonce: [UInt8]
  ) throws(NIP44Error) -> String {
    guard nonce.count == nonceBytes else {
      throw NIP44Error(code: .invalidNonce, message: "the nonce is \(nonce.count) bytes, not 32")
    }
    let count = plaintext.utf8.count
    guard (minPlaintextBytes...maxPlaintextBytes).contains(count) else {
      throw NIP44Error(
        code: .invalidPlaintextLength,
        message: "the plaintext is \(count) bytes, not 1 to \(maxPlaintextBytes)")
    }
    let paddedCount = paddedLength(count)
    let ciphertextCount = 2 + paddedCount
    var data = [UInt8](repeating: 0, count: 1 + nonceBytes + ciphertextCount + macBytes)
    data[0] = version
    data.withUnsafeMutableBytes { data in
      nonce.withUnsafeBytes { nonce in
        data.baseAddress!.advanced(by: 1).copyMemory(from: nonce.baseAddress!, byteCount: nonceBytes)
        let ciphertext = UnsafeMutableRawBufferPointer(
          rebasing: data[(1 + nonceBytes)..<(1 + nonceBytes + ciphertextCount)])
        ciphertext[0] = UInt8(count >> 8)
        ciphertext[1] = UInt8(count & 0xFF)
        var text = plaintext
        text.withUTF8 { utf8 in
          ciphertext.baseAddress!.advanced(by: 2).copyMemory(from: utf8.baseAddress!, byteCount: count)
        }
        let keys = MessageKeys(conversationKey: conversationKey, nonce: nonce)
        ChaCha20.apply(key: keys.chachaKey, nonce: keys.chachaNonce, counter: 0, to: ciphertext)
        var mac = HMACSHA256(key: keys.hmacKey)
        mac.update(nonce)
        mac.update(UnsafeRawBufferPointer(ciphertext))
        mac.finalize(into: UnsafeMutableRawBufferPointer(rebasing: data[(data.count - macBytes)...]))
      }
    }
    return data.withUnsafeBytes { Base64.encode($0) }
  }

  /// The plaintext of `payload` under `conversationKey`, or the first failed check of the
  /// spec's ordered list.
  ///
  /// Checks, in order: `#` → `unsupported_version`; 132…87 472 characters →
  /// `invalid_payload_size`; canonical base64 → `invalid_base64`; 99…65 603 bytes →
  /// `invalid_data_size`; version byte 2 → `unsupported_version`; MAC (constant time, before
  /// anything is decrypted) → `invalid_mac`; length prefix and zero padding → `invalid_padding`;
  /// UTF-8 → `invalid_utf8` (never replaced by U+FFFD).
  public static func decrypt(_ payload: String, conversationKey: ConversationKey) throws(NIP44Error) -> String
  {
    var payload = payload
    return try payload.withUTF8 {
      decryptResult(UnsafeRawBufferPointer($0), conversationKey: conversationKey)
    }.get()
  }

  /// `decrypt` of a payload given as raw bytes (the CLI's standard input), which need not be
  /// UTF-8: a byte outside the base64 alphabet fails check 3.
  package static func decrypt(
    bytes payload: UnsafeRawBufferPointer, conversationKey: ConversationKey
  ) throws(NIP44Error) -> String {
    try decryptResult(payload, conversationKey: conversationKey).get()
  }

  private static func decryptResult(
    _ payload: UnsafeRawBufferPointer, conversationKey: ConversationKey
  ) -> Result<String, NIP44Error> {
    if payload.first == UInt8(ascii: "#") {
      return .failure(
        NIP44Error(
          code: .unsupportedVersion,
          message: "the payload starts with '#', an encoding NIP-44 v2 does not read"))
    }
    guard (minPayloadCharacters...maxPayloadCharacters).contains(payload.count) else {
      return .failure(
        NIP44Error(
          code: .invalidPayloadSize,
          message:
            "the payload is \(payload.count) characters, not \(minPayloadCharacters) to \(maxPayloadCharacters)"
        ))
    }
    guard var data = Base64.decode(payload) else {
      return .failure(NIP44Error(code: .invalidBase64, message: "the payload is not canonical base64"))
    }
    defer { SystemRandom.wipe(&data) }
    guard (minPayloadBytes...maxPayloadBytes).contains(data.count) else {
      return .failure(
        NIP44Error(
          code: .invalidDataSize,
          message: "the payload decodes to \(data.count) bytes, not \(minPayloadBytes) to \(maxPayloadBytes)")
      )
    }
    guard data[0] == version else {
      return .failure(
        NIP44Error(code: .unsupportedVersion, message: "version \(data[0]) is not supported (only 2)"))
    }
    return data.withUnsafeMutableBytes { data in
      let nonce = UnsafeRawBufferPointer(rebasing: data[1..<(1 + nonceBytes)])
      let ciphertext = UnsafeMutableRawBufferPointer(
        rebasing: data[(1 + nonceBytes)..<(data.count - macBytes)])
      let receivedMAC = UnsafeRawBufferPointer(rebasing: data[(data.count - macBytes)...])
      let keys = MessageKeys(conversationKey: conversationKey, nonce: nonce)
      let macMatches = withUnsafeTemporaryAllocation(byteCount: macBytes, alignment: 16) { expected in
        var mac = HMACSHA256(key: keys.hmacKey)
        mac.update(nonce)
        mac.update(UnsafeRawBufferPointer(ciphertext))
        mac.finalize(into: expected)
        return HMACSHA256.constantTimeEqual(UnsafeRawBufferPointer(expected), receivedMAC)
      }
      guard macMatches else {
        return .failure(
          NIP44Error(code: .invalidMAC, message: "the MAC does not match: another key, or a changed payload"))
      }
      ChaCha20.apply(key: keys.chachaKey, nonce: keys.chachaNonce, counter: 0, to: ciphertext)
      let count = Int(ciphertext[0]) << 8 | Int(ciphertext[1])
      guard count >= minPlaintextBytes, 2 + count <= ciphertext.count,
        ciphertext.count == 2 + paddedLength(count)
      else {
        return .failure(
          NIP44Error(
            code: .invalidPadding, message: "the length prefix \(count) does not fit the padded size"))
      }
      var nonZero: UInt8 = 0
      for index in (2 + count)..<ciphertext.count { nonZero |= ciphertext[index] }
      guard nonZero == 0 else {
        return .failure(NIP44Error(code: .invalidPadding, message: "a padding byte is not zero"))
      }
      let plaintext = UnsafeRawBufferPointer(rebasing: ciphertext[2..<(2 + count)])
      guard let text = UTF8Text.decode(plaintext) else {
        return .failure(NIP44Error(code: .invalidUTF8, message: "the plaintext is not UTF-8"))
      }
      return .success(text)
    }
  }
}
