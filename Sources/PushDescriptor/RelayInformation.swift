import NostrJSON

/// A NIP-11 relay information document read permissively: known members of the wrong type are
/// nil, unknown members are kept raw, and nothing outside `push` can fail the document.
///
/// Use it for everything a client shows about a relay; the strict push part lives in
/// `PushDescriptor`, and `RelayDocument` reads both from one set of bytes.
public struct RelayInformation: Sendable, Hashable {
  /// The top-level members this type models (NIP-11), in the order the NIP lists them.
  package static let knownMembers: [String] = [
    "name", "description", "banner", "icon", "pubkey", "self", "contact", "supported_nips",
    "software", "version", "limitation", "retention", "fees", "relay_countries", "language_tags",
    "tags", "posting_policy", "payments_url",
  ]

  /// The top-level members read strictly by `PushDescriptor`, so never listed as ignored.
  package static let pushMembers: [String] = ["supported_extensions", "push"]

  /// The relay's name.
  public var name: String?
  /// The relay's description.
  package var description: String?
  /// A URL of a banner image.
  package var banner: String?
  /// A URL of an icon.
  package var icon: String?
  /// The administrator's public key as 64 lowercase hex (a 64-hex or npub `pubkey`).
  package var pubkey: String?
  /// The relay's own public key as 64 lowercase hex (the `self` member, 64 hex or npub).
  public var selfPubkey: String?
  /// An alternative contact (URI).
  package var contact: String?
  /// The NIP numbers the relay supports, as given; entries that are not numbers are dropped.
  package var supportedNIPs: [Int]?
  /// The software's project URL.
  package var software: String?
  /// The software's version.
  package var version: String?
  /// The NIP-11 `limitation` object, raw.
  package var limitation: JSONObject?
  /// The NIP-11 `retention` array, raw.
  package var retention: [JSONValue]?
  /// The NIP-11 `fees` object, raw.
  package var fees: JSONObject?
  /// Country codes of the relay's jurisdictions; non-string entries dropped.
  package var relayCountries: [String]?
  /// IETF language tags of the relay's community; non-string entries dropped.
  package var languageTags: [String]?
  /// Community tags; non-string entries dropped.
  package var tags: [String]?
  /// A URL of the posting policy.
  package var postingPolicy: String?
  /// A URL where fees can be paid.
  package var paymentsURL: String?
  /// The names of top-level members that are neither known NIP-11 members nor the push
  /// members, in document order.
  package var ignoredTopLevelKeys: [String]
  /// The whole document as read, for callers who want an ignored member's raw value.
  public var object: JSONObject

  /// Reads a document's root object leniently: a known member of the wrong type becomes nil.
  ///
  /// Use it for a document that has already been read as JSON (a relay building its own).
  public init(lenient object: JSONObject) {
    self.object = object
    var ignored: [String] = []
    for member in object.members {
      let value = member.value
      switch member.key {
      case "name": name = value.stringValue
      case "description": description = value.stringValue
      case "banner": banner = value.stringValue
      case "icon": icon = value.stringValue
      case "pubkey": pubkey = value.stringValue.flatMap(RelayPublicKey.hex(from:))
      case "self": selfPubkey = value.stringValue.flatMap(RelayPublicKey.hex(from:))
      case "contact": contact = value.stringValue
      case "supported_nips": supportedNIPs = Self.nipNumbers(value)
      case "software": software = value.stringValue
      case "version": version = value.stringValue
      case "limitation": limitation = value.objectValue
      case "retention": retention = value.arrayValue
      case "fees": fees = value.objectValue
      case "relay_countries": relayCountries = Self.strings(value)
      case "language_tags": languageTags = Self.strings(value)
      case "tags": tags = Self.strings(value)
      case "posting_policy": postingPolicy = value.stringValue
      case "payments_url": paymentsURL = value.stringValue
      case "supported_extensions", "push": break
      default: ignored.append(member.key)
      }
    }
    ignoredTopLevelKeys = ignored
  }

  /// Reads a document from JSON bytes leniently; only bytes that are not a JSON object fail.
  ///
  /// Use it when a client wants a relay's name and limits whether or not it offers push.
  public init(lenientJSON bytes: some Sequence<UInt8>) throws(PushDescriptorError) {
    self.init(lenient: try DocumentReader.rootObject(bytes))
  }

  /// The raw value of a top-level member, known or not.
  public subscript(member name: String) -> JSONValue? { object[name] }

  private static func nipNumbers(_ value: JSONValue) -> [Int]? {
    switch value {
    case .integer(let number): return number >= 0 ? [Int(number)] : nil
    case .array(let elements): return elements.compactMap(nipNumber)
    default: return nil
    }
  }

  private static func nipNumber(_ value: JSONValue) -> Int? {
    switch value {
    case .integer(let number) where number >= 0: return Int(number)
    case .string(let text) where !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) }:
      return Int(text)
    default: return nil
    }
  }

  private static func strings(_ value: JSONValue) -> [String]? {
    value.arrayValue?.compactMap(\.stringValue)
  }
}
