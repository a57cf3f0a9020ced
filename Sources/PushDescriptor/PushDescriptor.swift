import NostrJSON

/// A relay's validated `nip-pl` push descriptor: where to enroll, which keys sign leases, which
/// apps and kinds it serves, and its limits.
///
/// Only the strict initialisers create one from a document, so holding a value means every rule
/// of the spec held; a relay builds one with the memberwise initialiser and encodes it with
/// `jsonValue`.
public struct PushDescriptor: Sendable, Hashable {
  /// The extension name a relay advertises in `supported_extensions` unless told otherwise.
  public static let defaultExtensionName = "nip-pl"
  /// The only `h_grammar` value the spec defines.
  public static let uuidV4LowercaseGrammar = "uuid-v4-lowercase"
  /// Kinds every push relay must push.
  public static let requiredPushKinds: [Int] = [9, 40002, 45001, 45003]
  /// The members of `push`, in the order they are written; only `urgent_kinds` is optional.
  package static let memberNames: [String] = [
    "origin", "keys", "app_profiles", "push_kinds", "urgent_kinds", "h_grammar", "class_support",
    "limitation",
  ]

  /// The relay's WebSocket origin, `ws://` or `wss://` plus authority, exactly as written.
  public var origin: String
  /// The lease-signing keys; exactly one is current.
  public var keys: [PushKey]
  /// The apps the relay pushes to.
  public var appProfiles: [PushAppProfile]
  /// The event kinds the relay pushes (a superset of `requiredPushKinds`).
  public var pushKinds: [Int]
  /// The kinds pushed as urgent; nil when the member is absent.
  public var urgentKinds: [Int]?
  /// The grammar of `h` values (always `uuidV4LowercaseGrammar` once validated).
  public var hGrammar: String
  /// The push classes per transport.
  public var classSupport: PushClassSupport
  /// The lease limits.
  public var limitation: PushLimitation

  /// Creates a descriptor from its parts without checking them (a relay building its own).
  public init(
    origin: String, keys: [PushKey], appProfiles: [PushAppProfile], pushKinds: [Int],
    urgentKinds: [Int]? = nil, hGrammar: String = PushDescriptor.uuidV4LowercaseGrammar,
    classSupport: PushClassSupport, limitation: PushLimitation
  ) {
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

  /// Validates the advertisement and the `push` member of a whole document's root object.
  ///
  /// - Parameters:
  ///   - document: the root object of a NIP-11 document; members other than
  ///     `supported_extensions` and `push` are never looked at.
  ///   - extensionName: the name `supported_extensions` must contain.
  ///   - requiredAppProfile: when given, the profile that must be listed with that transport.
  public init(
    strictDocument document: JSONObject, extensionName: String = PushDescriptor.defaultExtensionName,
    requiredAppProfile: PushAppProfile? = nil
  ) throws(PushDescriptorError) {
    let validator = PushDescriptorValidator(
      extensionName: extensionName, requiredAppProfile: requiredAppProfile)
    self = try validator.descriptor(fromDocument: document)
  }

  /// Validates a document's JSON bytes strictly: the advertisement and the whole `push` object.
  ///
  /// Use `RelayDocument` instead when the permissive rest of the document is wanted too.
  public init(
    strictJSON bytes: some Sequence<UInt8>, extensionName: String = PushDescriptor.defaultExtensionName,
    requiredAppProfile: PushAppProfile? = nil
  ) throws(PushDescriptorError) {
    try self.init(
      strictDocument: try DocumentReader.rootObject(bytes), extensionName: extensionName,
      requiredAppProfile: requiredAppProfile)
  }

  /// Validates a `push` value on its own (errors still name `push.…` paths).
  ///
  /// Use it when the advertisement has been checked elsewhere, or to compare a descriptor read
  /// from a full document with the same `push` object read alone.
  public init(strictPush push: JSONValue, requiredAppProfile: PushAppProfile? = nil)
    throws(PushDescriptorError)
  {
    let validator = PushDescriptorValidator(
      extensionName: PushDescriptor.defaultExtensionName, requiredAppProfile: requiredAppProfile)
    self = try validator.descriptor(fromPush: push)
  }

  /// Whether `document` carries a valid descriptor advertised under `extensionName`.
  public static func isValid(
    strictDocument document: JSONObject, extensionName: String = PushDescriptor.defaultExtensionName
  ) -> Bool {
    (try? PushDescriptor(strictDocument: document, extensionName: extensionName)) != nil
  }
}
