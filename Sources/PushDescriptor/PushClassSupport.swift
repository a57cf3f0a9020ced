import NostrJSON

/// Which push classes the relay supports per transport (`class_support`).
///
/// Only `apns` has a defined vocabulary; entries for other transports are kept raw so a relay
/// can add one without breaking clients.
public struct PushClassSupport: Sendable, Hashable {
  /// The APNs classes, in the order given; never empty and always containing `default`.
  public var apns: [PushClass]
  /// Every other transport's entry, raw, in document order.
  package var otherTransports: JSONObject

  /// Creates a class-support table.
  public init(apns: [PushClass], otherTransports: JSONObject = JSONObject()) {
    self.apns = apns
    self.otherTransports = otherTransports
  }
}
