@_exported import NostrPushCore

/// Why the fixture relay could not load its data or start, and which field or setting was at fault.
///
/// Equality compares `code` and `field` only, so a test can match a failure without depending on
/// the human-readable message.
public typealias RelayFixtureError = DomainError<RelayFixtureErrorDomain>

/// The error domain of `RelayFixtureError`: its codes are the static members below.
public enum RelayFixtureErrorDomain: ErrorDomain {
}

extension ErrorCode where Domain == RelayFixtureErrorDomain {
  /// The host is an IP address outside 127.0.0.0/8 and `::1`, or a name other than `localhost`.
  public static var nonLoopbackHost: Self { Self("non_loopback_host") }
  /// The host is `::1` where only IPv4 loopback is served (push mode, the gateway fixture):
  /// FoundationNetworking on Linux cannot fetch a URL with an IPv6 literal.
  public static var ipv4LoopbackOnly: Self { Self("ipv4_loopback_only") }
  /// The host is not an IP address literal at all.
  public static var invalidHost: Self { Self("invalid_host") }
  /// The port is outside 0 … 65535.
  public static var invalidPort: Self { Self("invalid_port") }
  /// The address is already bound by another socket.
  public static var addressInUse: Self { Self("address_in_use") }
  /// A socket call failed (the message holds `errno`'s text).
  public static var socket: Self { Self("socket") }
  /// `start()` was called on a server that is running or was stopped.
  public static var invalidState: Self { Self("invalid_state") }
  /// A file of the data folder could not be read.
  public static var unreadable: Self { Self("unreadable") }
  /// A file of the data folder is present but does not have the documented shape.
  public static var invalidData: Self { Self("invalid_data") }
}
