/// An app the relay can push to, and the push service it uses for it (`nip-pl` only: a
/// `buzz-push-v1` relay serves one app per gateway and has no app profiles).
///
/// A client checks that the relay lists its own app profile with the expected transport before
/// it enrolls; the same type names that requirement when validating.
public struct PushAppProfile: Sendable, Hashable {
  /// The profile identifier, unique within the descriptor.
  public var id: String
  /// The push service (`apns`, `fcm`, …).
  public var transport: String

  /// Creates a profile.
  public init(id: String, transport: String) {
    self.id = id
    self.transport = transport
  }
}
