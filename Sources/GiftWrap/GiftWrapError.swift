@_exported import NostrPushCore

/// Why a gift wrap was not opened, or a direct message not wrapped: one code per rule, in
/// the order the checks run, so a caller (and a test) can tell which rule a wrap broke.
///
/// It has the package's one error shape; equality compares `code` and `field`, never `message`.
/// A message never holds plaintext of the conversation.
public typealias GiftWrapError = DomainError<GiftWrapErrorDomain>

/// The error domain of `GiftWrapError`: its codes are the static members below.
public enum GiftWrapErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == GiftWrapErrorDomain {
  /// The event is not kind 1059.
  public static var notAGiftWrap: Self { Self("not_a_gift_wrap") }
  /// The wrap's content is over 87 472 characters, NIP-44's largest payload.
  public static var contentTooLong: Self { Self("content_too_long") }
  /// The wrap's id or signature does not verify.
  public static var wrapUnverified: Self { Self("wrap_unverified") }
  /// NIP-44 with (recipient, wrap pubkey) failed: a wrap for another key, or a changed payload.
  public static var wrapUnopened: Self { Self("wrap_unopened") }
  /// The wrap's plaintext is not an event (JSON, fields).
  public static var sealMalformed: Self { Self("seal_malformed") }
  /// The seal is not kind 13.
  public static var sealKind: Self { Self("seal_kind") }
  /// The seal has tags (NIP-59: always empty).
  public static var sealTags: Self { Self("seal_tags") }
  /// The seal's id or signature does not verify.
  public static var sealUnverified: Self { Self("seal_unverified") }
  /// NIP-44 with (recipient, seal pubkey) failed.
  public static var sealUnopened: Self { Self("seal_unopened") }
  /// The seal's plaintext is not an unsigned event (JSON, fields).
  public static var rumorMalformed: Self { Self("rumor_malformed") }
  /// The rumor is not kind 14 (chat) or 15 (file).
  public static var rumorKind: Self { Self("rumor_kind") }
  /// The rumor's pubkey is not the seal's: an impersonation.
  public static var rumorAuthorMismatch: Self { Self("rumor_author_mismatch") }
  /// The rumor carries an `id` that is not the hash of its fields.
  public static var rumorIDMismatch: Self { Self("rumor_id_mismatch") }
  /// Wrapping: a recipient that is not 64 lowercase hex of a curve point.
  public static var invalidRecipient: Self { Self("invalid_recipient") }
  /// Wrapping: a backdate outside 0…172 800 seconds.
  public static var invalidBackdate: Self { Self("invalid_backdate") }
  /// Wrapping: a rumor not by the sender, not kind 14 or 15, or with an out-of-range field.
  public static var invalidRumor: Self { Self("invalid_rumor") }
  /// Wrapping: the rumor or the seal is longer than NIP-44 encrypts (65 535 bytes).
  public static var messageTooLong: Self { Self("message_too_long") }
}
