import NostrEvent
import NostrJSON

/// What the extension must know about one enrolled account, written by the app after every
/// successful publish of a lease and read by the extension to configure its resolver
/// (`ResolverConfiguration(account:secretKey:)`).
///
/// The app and its Notification Service Extension are two processes; the extension must select
/// by exactly the rule the relay matched by, so the value carries the lease's own
/// ``subscriptions`` (the planner's output the builder put in the plaintext), beside the relay's
/// origin, the push key the lease was encrypted to, the account, the installation id (the
/// lease's `d`), the generation, the senders the user muted and the presentation window. The
/// account's secret key is never part of it: the extension reads that from the keychain.
///
/// Saved form (decision): ``jsonBytes``, compact JSON written by NostrJSON with the members
/// `origin`, `push_key` (`{"id":…,"pubkey":…}`), `account`, `d`, `generation`, `subscriptions`,
/// `muted_pubkeys`, `presentation_window` (whole seconds, null for the resolver's default), in
/// that order; each subscription is byte for byte what the lease plaintext held.
/// ``init(jsonBytes:)`` reads it strictly (unknown members refused). `Codable` encodes the same
/// members with the same names, for an app that stores it with its own encoder.
public struct EnrolledAccount: Sendable, Hashable, Codable {
  /// The largest saved form ``init(jsonBytes:)`` reads.
  public static let maxJSONBytes = 2 * 1024 * 1024
  /// The most muted senders a saved account holds.
  public static let maxMutedPubkeys = 10_000

  /// The relay's canonical origin (the descriptor's `push.origin`, parsed once).
  public let origin: RelayOrigin
  /// The id of the relay's push key the lease was encrypted to (its `exec` tag).
  public let pushKeyID: String
  /// That push key's public key.
  public let pushKey: NostrID
  /// The account's public key: the lease's author and the resolver's account.
  public let account: NostrID
  /// The lease's `d`: one per (origin, account), new on reinstall.
  public let installationID: InstallationID
  /// The generation of the lease these subscriptions went into.
  public let generation: Int64
  /// The lease's subscriptions, as the relay matches with them.
  public let subscriptions: [LeaseSubscription]
  /// Senders whose messages the extension never shows (sorted, no duplicates); the lease's
  /// `ignore` filters keep the phone from waking for them as far as `max_ignore` allows.
  public let mutedPubkeys: [NostrID]
  /// How old a message may be and still be shown; nil for the resolver's default.
  public let presentationWindow: Duration?

  /// Creates the value the app saves after a successful publish.
  ///
  /// - Throws: `invalid_account` when there are more than ``LeaseSubscription/maxListed``
  ///   subscriptions or ``maxMutedPubkeys`` muted senders, the key id is empty, or the
  ///   generation is not positive.
  public init(
    origin: RelayOrigin, pushKeyID: String, pushKey: NostrID, account: NostrID,
    installationID: InstallationID,
    generation: Int64, subscriptions: [LeaseSubscription], mutedPubkeys: [NostrID] = [],
    presentationWindow: Duration? = nil
  ) throws(EnrolledAccountError) {
    guard !pushKeyID.isEmpty else { throw Self.invalid("push_key.id", "must not be empty") }
    guard generation > 0 else { throw Self.invalid("generation", "must be positive") }
    guard subscriptions.count <= LeaseSubscription.maxListed else {
      throw Self.invalid("subscriptions", "more than \(LeaseSubscription.maxListed)")
    }
    guard mutedPubkeys.count <= Self.maxMutedPubkeys else {
      throw Self.invalid("muted_pubkeys", "more than \(Self.maxMutedPubkeys)")
    }
    if let presentationWindow, presentationWindow <= .zero {
      throw Self.invalid("presentation_window", "must be positive")
    }
    self.origin = origin
    self.pushKeyID = pushKeyID
    self.pushKey = pushKey
    self.account = account
    self.installationID = installationID
    self.generation = generation
    self.subscriptions = subscriptions
    self.mutedPubkeys = Array(Set(mutedPubkeys)).sorted()
    self.presentationWindow = presentationWindow.map { .seconds($0.components.seconds) }
  }

  // MARK: The saved form

  /// The members of the saved form, in the order they are written.
  static let memberNames = [
    "origin", "push_key", "account", "d", "generation", "subscriptions", "muted_pubkeys",
    "presentation_window",
  ]

  /// The saved form as JSON (see the type's comment).
  public var jsonValue: JSONValue {
    .object(
      JSONObject([
        "origin": .string(origin.description),
        "push_key": .object(JSONObject(["id": .string(pushKeyID), "pubkey": .string(pushKey.hex)])),
        "account": .string(account.hex),
        "d": .string(installationID.rawValue),
        "generation": .integer(generation),
        "subscriptions": .array(subscriptions.map(\.jsonValue)),
        "muted_pubkeys": .array(mutedPubkeys.map { .string($0.hex) }),
        "presentation_window": presentationWindow.map { .integer($0.components.seconds) } ?? .null,
      ]))
  }

  /// The saved form, compact UTF-8 JSON: what the app writes to the shared container.
  public var jsonBytes: [UInt8] { JSONWriter.bytes(jsonValue) }

  /// Reads the saved form strictly: at most ``maxJSONBytes``, every member present and of its
  /// type, no unknown member, each value checked (the subscriptions by
  /// ``LeaseSubscription/list(jsonValue:)``).
  ///
  /// - Throws: `invalid_account`, `field` naming the member at fault.
  public init(jsonBytes: some Collection<UInt8>) throws(EnrolledAccountError) {
    guard jsonBytes.count <= Self.maxJSONBytes else {
      throw Self.invalid(nil, "more than \(Self.maxJSONBytes) bytes")
    }
    let value: JSONValue
    do {
      value = try JSONReader(maxBytes: Self.maxJSONBytes).read(jsonBytes)
    } catch {
      throw Self.invalid(nil, "not valid JSON: \(error.message)")
    }
    try self.init(jsonValue: value)
  }

  /// Reads the saved form from parsed JSON, as ``init(jsonBytes:)`` does.
  public init(jsonValue: JSONValue) throws(EnrolledAccountError) {
    guard case .object(let object) = jsonValue else { throw Self.invalid(nil, "must be an object") }
    for key in object.keys where !Self.memberNames.contains(key) {
      throw Self.invalid(key, "unknown member")
    }
    func member(_ key: String) throws(EnrolledAccountError) -> JSONValue {
      guard let value = object[key] else { throw Self.invalid(key, "missing") }
      return value
    }
    func string(_ key: String, _ value: JSONValue) throws(EnrolledAccountError) -> String {
      guard let text = value.stringValue else { throw Self.invalid(key, "must be a string") }
      return text
    }
    func id(_ key: String, _ value: JSONValue) throws(EnrolledAccountError) -> NostrID {
      guard let id = NostrID(try string(key, value)) else {
        throw Self.invalid(key, "must be 64 lowercase hex")
      }
      return id
    }
    let originText = try string("origin", member("origin"))
    let origin: RelayOrigin
    do {
      origin = try RelayOrigin(originText)
    } catch {
      throw Self.invalid("origin", "not a relay origin: \(error.message)")
    }
    guard case .object(let pushKey) = try member("push_key"), pushKey.count == 2,
      let keyID = pushKey["id"]?.stringValue, let keyPubkey = pushKey["pubkey"]
    else { throw Self.invalid("push_key", "must be {\"id\":…,\"pubkey\":…}") }
    guard let installationID = InstallationID(rawValue: try string("d", member("d"))) else {
      throw Self.invalid("d", "must be 32 lowercase hex")
    }
    guard let generation = try member("generation").integerValue else {
      throw Self.invalid("generation", "must be an integer")
    }
    let subscriptionsValue = try member("subscriptions")
    let subscriptions: [LeaseSubscription]
    do {
      subscriptions = try LeaseSubscription.list(jsonValue: subscriptionsValue)
    } catch {
      throw Self.invalid("subscriptions", error.message)
    }
    guard case .array(let mutedItems) = try member("muted_pubkeys") else {
      throw Self.invalid("muted_pubkeys", "must be an array")
    }
    guard mutedItems.count <= Self.maxMutedPubkeys else {
      throw Self.invalid("muted_pubkeys", "more than \(Self.maxMutedPubkeys)")
    }
    var muted: [NostrID] = []
    for item in mutedItems { muted.append(try id("muted_pubkeys", item)) }
    var window: Duration?
    let windowValue = try member("presentation_window")
    if !windowValue.isNull {
      guard let seconds = windowValue.integerValue else {
        throw Self.invalid("presentation_window", "must be whole seconds or null")
      }
      window = .seconds(seconds)
    }
    try self.init(
      origin: origin, pushKeyID: keyID, pushKey: try id("push_key.pubkey", keyPubkey),
      account: try id("account", member("account")), installationID: installationID, generation: generation,
      subscriptions: subscriptions, mutedPubkeys: muted, presentationWindow: window)
  }

  // MARK: Codable

  /// Decodes the saved form's members, checked as ``init(jsonValue:)`` checks them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let keyContainer = try container.nestedContainer(keyedBy: PushKeyKeys.self, forKey: .pushKey)
    func id(_ text: String, _ key: String) throws -> NostrID {
      guard let id = NostrID(text) else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: decoder.codingPath, debugDescription: "\(key): not 64 lowercase hex"))
      }
      return id
    }
    let window = try container.decodeIfPresent(Int64.self, forKey: .presentationWindow)
    try self.init(
      origin: RelayOrigin(container.decode(String.self, forKey: .origin)),
      pushKeyID: keyContainer.decode(String.self, forKey: .id),
      pushKey: id(keyContainer.decode(String.self, forKey: .pubkey), "push_key.pubkey"),
      account: id(container.decode(String.self, forKey: .account), "account"),
      installationID: container.decode(InstallationID.self, forKey: .installationID),
      generation: container.decode(Int64.self, forKey: .generation),
      subscriptions: container.decode([LeaseSubscription].self, forKey: .subscriptions),
      mutedPubkeys: container.decode([String].self, forKey: .mutedPubkeys).map {
        try id($0, "muted_pubkeys")
      },
      presentationWindow: window.map { .seconds($0) })
  }

  /// Encodes the saved form's members.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(origin.description, forKey: .origin)
    var keyContainer = container.nestedContainer(keyedBy: PushKeyKeys.self, forKey: .pushKey)
    try keyContainer.encode(pushKeyID, forKey: .id)
    try keyContainer.encode(pushKey.hex, forKey: .pubkey)
    try container.encode(account.hex, forKey: .account)
    try container.encode(installationID, forKey: .installationID)
    try container.encode(generation, forKey: .generation)
    try container.encode(subscriptions, forKey: .subscriptions)
    try container.encode(mutedPubkeys.map(\.hex), forKey: .mutedPubkeys)
    try container.encode(presentationWindow?.components.seconds, forKey: .presentationWindow)
  }

  private enum CodingKeys: String, CodingKey {
    case origin
    case pushKey = "push_key"
    case account
    case installationID = "d"
    case generation
    case subscriptions
    case mutedPubkeys = "muted_pubkeys"
    case presentationWindow = "presentation_window"
  }

  private enum PushKeyKeys: String, CodingKey {
    case id, pubkey
  }

  private static func invalid(_ field: String?, _ message: String) -> EnrolledAccountError {
    EnrolledAccountError(code: .invalidAccount, field: field, message: message)
  }
}
