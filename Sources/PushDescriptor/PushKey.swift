/// One key a relay signs push leases with, as its descriptor lists it.
///
/// A relay rotates keys by listing the next one beside the `current` one and marking the old
/// one `retiring`; clients pin the current key's `id`.
public struct PushKey: Sendable, Hashable {
  /// The key's identifier, unique within the descriptor.
  public var id: String
  /// The x-only public key as 64 lowercase hex.
  public var pubkey: String
  /// The `current` member as given; nil when absent.
  package var current: Bool?
  /// The `retiring` member as given; nil when absent.
  package var retiring: Bool?

  /// Creates a key entry; absent optional members stay nil (and are not encoded).
  public init(id: String, pubkey: String, current: Bool? = nil, retiring: Bool? = nil) {
    self.id = id
    self.pubkey = pubkey
    self.current = current
    self.retiring = retiring
  }

  /// Whether this is the key leases are signed with now (`current: true`).
  public var isCurrent: Bool { current == true }
}
