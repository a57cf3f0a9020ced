import NostrEvent
import NostrJSON

/// A relay's validated push descriptor (`nip-pl` or `buzz-push-v1`): where to enroll, which keys
/// sign leases, which apps and kinds it serves, and its limits.
///
/// Only the strict initialisers create one from a document, so holding a value means every rule
/// of the spec held for its generation; a relay builds one with the memberwise initialiser and
/// encodes it with `jsonValue`. Its members are read-only outside the package, so a checked value
/// cannot be changed into an unchecked one after the fact.
public struct PushDescriptor: Sendable, Hashable {
  /// The only `h_grammar` value the spec defines.
  public static let uuidV4LowercaseGrammar = "uuid-v4-lowercase"
  /// Kinds every push relay must push.
  public static let requiredPushKinds: [Int] = EventKind.channelMessages

  /// The protocol generation the relay advertises; it decides the `push` members and the lease
  /// plaintext.
  public package(set) var pushProtocol: PushProtocol
  /// The relay's WebSocket origin, `ws://` or `wss://` plus authority, exactly as written.
  public package(set) var origin: String
  /// The lease-signing keys; exactly one is current.
  public package(set) var keys: [PushKey]
  /// The apps the relay pushes to (`nip-pl`); always empty for `buzz-push-v1`.
  public package(set) var appProfiles: [PushAppProfile]
  /// The event kinds the relay pushes (a superset of `requiredPushKinds`).
  public package(set) var pushKinds: [Int]
  /// The kinds pushed as urgent; nil when the member is absent (always for `buzz-push-v1`).
  public package(set) var urgentKinds: [Int]?
  /// The grammar of `h` values (always `uuidV4LowercaseGrammar` once validated).
  public package(set) var hGrammar: String
  /// The push classes per transport.
  public package(set) var classSupport: PushClassSupport
  /// The lease limits.
  public package(set) var limitation: PushLimitation

  /// Creates a descriptor from its parts without checking them (a relay building its own).
  ///
  /// A `buzz-push-v1` descriptor has no app profiles and no urgent kinds: they are not encoded.
  public init(
    pushProtocol: PushProtocol = .nipPL, origin: String, keys: [PushKey], appProfiles: [PushAppProfile] = [],
    pushKinds: [Int], urgentKinds: [Int]? = nil, hGrammar: String = PushDescriptor.uuidV4LowercaseGrammar,
    classSupport: PushClassSupport, limitation: PushLimitation
  ) {
    self.pushProtocol = pushProtocol
    self.origin = origin
    self.keys = keys
    self.appProfiles = appProfiles
    self.pushKinds = pushKinds
    self.urgentKinds = urgentKinds
    self.hGrammar = hGrammar
    self.classSupport = classSupport
    self.limitation = limitation
  }

  /// The key leases are signed with now.
  public var currentKey: PushKey? { keys.first(where: \.isCurrent) }

  /// The transports a `buzz-push-v1` lease may name: the keys of `class_support`, `apns` first.
  package var classSupportTransports: [String] {
    ["apns"] + classSupport.otherTransports.keys.filter { $0 != "apns" }
  }

  /// Validates the advertisement and the `push` member of a whole document's root object.
  ///
  /// - Parameters:
  ///   - document: the root object of a NIP-11 document; members other than
  ///     `supported_extensions` and `push` are never looked at.
  ///   - protocols: the generations the caller accepts (both by default); the document's
  ///     generation is the one its `supported_extensions` lists.
  ///   - requiredAppProfile: when given, the profile that must be listed with that transport.
  ///     It applies to `nip-pl` only: a `buzz-push-v1` relay has no app profiles, and the
  ///     requirement is ignored for it.
  public init(
    strictDocument document: JSONObject, protocols: Set<PushProtocol> = Set(PushProtocol.allCases),
    requiredAppProfile: PushAppProfile? = nil
  ) throws(PushDescriptorError) {
    let validator = PushDescriptorValidator(protocols: protocols, requiredAppProfile: requiredAppProfile)
    self = try validator.descriptor(fromDocument: document)
  }

  /// Validates a document's JSON bytes strictly: the advertisement and the whole `push` object.
  ///
  /// Use `RelayDocument` instead when the permissive rest of the document is wanted too.
  /// `requiredAppProfile` applies to `nip-pl` only, as in `init(strictDocument:…)`.
  public init(
    strictJSON bytes: some Sequence<UInt8>, protocols: Set<PushProtocol> = Set(PushProtocol.allCases),
    requiredAppProfile: PushAppProfile? = nil
  ) throws(PushDescriptorError) {
    try self.init(
      strictDocument: try DocumentReader.rootObject(bytes), protocols: protocols,
      requiredAppProfile: requiredAppProfile)
  }

  /// Validates a `push` value on its own as generation `pushProtocol` (errors still name
  /// `push.…` paths).
  ///
  /// Use it when the advertisement has been checked elsewhere, or to compare a descriptor read
  /// from a full document with the same `push` object read alone. `requiredAppProfile` applies
  /// to `nip-pl` only.
  public init(
    strictPush push: JSONValue, pushProtocol: PushProtocol = .nipPL, requiredAppProfile: PushAppProfile? = nil
  ) throws(PushDescriptorError) {
    let validator = PushDescriptorValidator(protocols: [pushProtocol], requiredAppProfile: requiredAppProfile)
    self = try validator.descriptor(fromPush: push, pushProtocol: pushProtocol)
  }

  /// Whether `document` carries a valid descriptor of one of `protocols`.
  public static func isValid(
    strictDocument document: JSONObject, protocols: Set<PushProtocol> = Set(PushProtocol.allCases)
  ) -> Bool {
    (try? PushDescriptor(strictDocument: document, protocols: protocols)) != nil
  }
}
