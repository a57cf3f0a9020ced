import PushDescriptor

/// A lease store that records the protocol generation of each origin's rows:
/// leases and grants of one generation are not another's, so a relay started with the other
/// generation over an origin that has leases must not start. `PushRelay` binds its descriptor's
/// generation when it is built over such a store.
package protocol PushProtocolBinding: LeaseStore {
  /// Records `pushProtocol` for `origin`: switched only while the origin has no rows; otherwise
  /// throws ``PushProtocolBinding/mismatch(recorded:started:origin:)``.
  func bindProtocol(_ pushProtocol: PushProtocol, origin: String) throws(PushRelayError)

  /// The generation recorded for `origin`, nil before a relay bound one.
  func recordedProtocol(origin: String) throws(PushRelayError) -> PushProtocol?
}

extension PushProtocolBinding {
  /// The `invalid_configuration` (field `nip11.json`) of a relay started as `started` over
  /// `origin`'s leases of generation `recorded`.
  package static func mismatch(recorded: String, started: PushProtocol, origin: String) -> PushRelayError {
    PushRelayError(
      code: .invalidConfiguration, field: "nip11.json",
      message:
        "the state holds \(recorded) leases for \(origin) and the relay is started as "
        + "\(started.rawValue): leases and grants are not portable between "
        + "generations; start from an empty state")
  }
}

extension SQLiteLeaseStore: PushProtocolBinding {}
