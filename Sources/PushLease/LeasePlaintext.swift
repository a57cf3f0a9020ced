import NostrJSON

/// The decrypted content of a lease, as the builder writes it and the validator reads it.
///
/// `jsonValue` is the exact plaintext of `Docs/EnrollingFromAnApp.md`: keys `v`, `origin`, `app_profile`,
/// `transport`, `endpoint`, `generation`, `active`, `subscriptions` for an active `nip-pl` lease
/// (`buzz-push-v1` leaves out `app_profile`) and `v`, `origin`, `generation`, `active` for a
/// tombstone; `JSONWriter` writes it compactly with NIP-01 string escaping.
struct LeasePlaintext: Sendable, Hashable {
  /// The only plaintext version this module writes and accepts.
  static let version: Int64 = 1

  /// What an active lease asks for.
  struct Active: Sendable, Hashable {
    /// The app profile (`nip-pl`); nil for `buzz-push-v1`, whose plaintext has none.
    var appProfile: String?
    var transport: String
    var endpoint: String
    var subscriptions: [LeaseSubscription]
  }

  /// The relay's `push.origin`, byte for byte.
  var origin: String
  /// The generation, 1…2^53−1.
  var generation: Int64
  /// The request of an active lease; nil for a tombstone.
  var active: Active?

  /// The plaintext as JSON, keys in the spec's order.
  var jsonValue: JSONValue {
    var members = [
      JSONMember(key: "v", value: .integer(Self.version)), JSONMember(key: "origin", value: .string(origin)),
    ]
    if let active {
      if let appProfile = active.appProfile {
        members.append(JSONMember(key: "app_profile", value: .string(appProfile)))
      }
      members += [
        JSONMember(key: "transport", value: .string(active.transport)),
        JSONMember(key: "endpoint", value: .string(active.endpoint)),
        JSONMember(key: "generation", value: .integer(generation)),
        JSONMember(key: "active", value: .bool(true)),
        JSONMember(key: "subscriptions", value: .array(active.subscriptions.map(\.jsonValue))),
      ]
    } else {
      members += [
        JSONMember(key: "generation", value: .integer(generation)),
        JSONMember(key: "active", value: .bool(false)),
      ]
    }
    return .object(JSONObject(members))
  }

  /// The compact UTF-8 plaintext that is encrypted.
  var text: String { JSONWriter.string(jsonValue) }
}
