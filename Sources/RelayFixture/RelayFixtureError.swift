import NostrPushCore

/// Why the fixture relay could not load its data or start, and which field or setting was at fault.
///
/// Equality compares `code` and `field` only, so a test can match a failure without depending on
/// the human-readable message.
public struct RelayFixtureError: NostrPushError {
  /// A stable, machine-readable reason.
  public enum Code: String, Sendable, Hashable {
    /// The host is an IP address outside 127.0.0.0/8 and `::1`, or a name other than `localhost`.
    case nonLoopbackHost = "non_loopback_host"
    /// The host is `::1` where only IPv4 loopback is served (push mode, the gateway fixture):
    /// FoundationNetworking on Linux cannot fetch a URL with an IPv6 literal.
    case ipv4LoopbackOnly = "ipv4_loopback_only"
    /// The host is not an IP address literal at all.
    case invalidHost = "invalid_host"
    /// The port is outside 0 … 65535.
    case invalidPort = "invalid_port"
    /// The address is already bound by another socket.
    case addressInUse = "address_in_use"
    /// A socket call failed (the message holds `errno`'s text).
    case socket
    /// `start()` was called on a server that is running or was stopped.
    case invalidState = "invalid_state"
    /// A file of the data folder could not be read.
    case unreadable
    /// A file of the data folder is present but does not have the documented shape.
    case invalidData = "invalid_data"
  }

  /// The stable reason.
  public var code: Code
  /// What was at fault: a setting (`host`, `port`), a file (`nip11.json`) or a path inside one
  /// (`faults.json[2].action`).
  public var field: String?
  /// A human-readable explanation.
  public var message: String

  /// Creates an error.
  public init(code: Code, field: String?, message: String) {
    self.code = code
    self.field = field
    self.message = message
  }

  public var description: String { "\(field ?? "-"): \(message) (\(code.rawValue))" }

}
