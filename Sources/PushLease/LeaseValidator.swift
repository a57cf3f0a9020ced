import NostrEvent
import NostrJSON
import PushDescriptor

/// The relay's judgement of a kind 30350 lease: the validator table of `Docs/EnrollingFromAnApp.md`, checked
/// in order, the first failure a `LeaseRejection` with the table's exact `invalid: …` text.
///
/// It judges by the generation of the relay's own descriptor: a `nip-pl` active plaintext must
/// name an advertised `app_profile`, a `buzz-push-v1` one must not (`unknown field:
/// app_profile`) and names a transport that is a key of `class_support`.
///
/// It trusts ingest for the event's id, signature, author and `created_at` (`Docs/VendoringPushRelay.md`),
/// holds the push secret keys it may open leases with, and stores nothing: staleness,
/// generation, quota and endpoint uniqueness are the relay store's decisions afterwards.
///
/// The author's side reads its own leases back with the same table
/// (``init(descriptor:author:allowedSkew:)``): NIP-44's conversation key is the same from either
/// end, so the author's secret key and the pubkey of the entry `exec` names open the content.
public struct LeaseValidator: Sendable {
  /// The clock slack for `lease already expired`, in seconds, unless told otherwise.
  public static let defaultAllowedSkew: Int64 = 120
  /// The deepest JSON nesting accepted in a plaintext (the root object is depth 1).
  package static let maxPlaintextDepth = 16
  /// The longest `d` tag, in bytes.
  package static let maxDTagBytes = 64
  /// The public tags a lease may carry; each at most once.
  package static let allowedTags: Set<String> = ["d", "expiration", "exec", "alt"]

  /// The relay's descriptor; its `limitation` bounds every check.
  package let descriptor: PushDescriptor
  /// The clock slack for expired leases, in seconds.
  package let allowedSkew: Int64
  private let pushKeys: [String: SecretKey]
  /// The author whose own leases this validator opens; nil on the relay's side.
  private let author: SecretKey?

  /// Creates a validator holding the secret keys of descriptor entries, by key id.
  ///
  /// - Parameters:
  ///   - descriptor: the relay's own descriptor; its `limitation` bounds every check.
  ///   - pushKeys: secret keys by `push.keys` id; any listed key, current or retiring, whose
  ///     `pubkey` each matches.
  ///   - allowedSkew: the clock slack for `lease already expired`, in seconds.
  /// - Throws: `unknown_push_key` when there is none, or one names no entry or another pubkey.
  public init(
    descriptor: PushDescriptor, pushKeys: [String: SecretKey], allowedSkew: Int64 = defaultAllowedSkew
  ) throws(LeaseBuildError) {
    guard !pushKeys.isEmpty else {
      throw LeaseBuildError(code: .unknownPushKey, message: "no push secret key was given")
    }
    for (id, key) in pushKeys.sorted(by: { $0.key < $1.key }) {
      guard let entry = descriptor.keys.first(where: { $0.id == id }) else {
        throw LeaseBuildError(
          code: .unknownPushKey, field: id, message: "the descriptor lists no key \"\(id)\"")
      }
      guard entry.pubkey == key.publicKeyHex else {
        throw LeaseBuildError(
          code: .unknownPushKey, field: id, message: "the secret key for \"\(id)\" is not that entry's pubkey"
        )
      }
    }
    self.descriptor = descriptor
    self.pushKeys = pushKeys
    self.author = nil
    self.allowedSkew = allowedSkew
  }

  /// Creates a validator for the author's side: it opens leases `author` signed, with `author`
  /// and the pubkey of the descriptor entry each lease's `exec` names, and judges them as the
  /// relay would (a lease by anyone else fails the decrypt step). It holds no push key, so it
  /// signs nothing for the gateway.
  ///
  /// - Parameters:
  ///   - descriptor: the relay's descriptor, as the author read it.
  ///   - author: the account's secret key.
  ///   - allowedSkew: the clock slack for `lease already expired`, in seconds.
  public init(descriptor: PushDescriptor, author: SecretKey, allowedSkew: Int64 = defaultAllowedSkew) {
    self.descriptor = descriptor
    self.pushKeys = [:]
    self.author = author
    self.allowedSkew = allowedSkew
  }

  /// The ids of the keys this validator can open leases with, sorted.
  package var keyIDs: [String] { pushKeys.keys.sorted() }

  /// The push key that signs gateway requests for a lease encrypted to `keyID`: that key, or,
  /// with one key held, the only one (the key the grant names); nil when none fits.
  package func signingKey(for keyID: String) -> SecretKey? {
    if let key = pushKeys[keyID] { return key }
    return pushKeys.count == 1 ? pushKeys.first?.value : nil
  }

  /// Opens and judges `event`, sent to the relay at `tenantOrigin`, at Unix time `now`.
  public func open(_ event: Event, tenantOrigin: String, now: Int64) throws(LeaseRejection) -> OpenedLease {
    let limits = descriptor.limitation

    // event
    guard event.kind == LeaseBuilder.kind else { throw LeaseRejection(.event, "wrong event kind") }
    guard event.content.utf8.count <= limits.maxContentLen else {
      throw LeaseRejection(.event, "content too long")
    }

    // each tag, in event order
    var tags: [String: String] = [:]
    for tag in event.tags {
      guard let name = tag.first else { throw LeaseRejection(.tag, "empty public tag") }
      guard tag.count == 2 else { throw LeaseRejection(.tag, "\(name) tag must have exactly one value") }
      if Self.allowedTags.contains(name) {
        guard tags[name] == nil else { throw LeaseRejection(.tag, "duplicate \(name) tag") }
        tags[name] = tag[1]
      } else {
        throw LeaseRejection(.tag, "unexpected public tag: \(name)")
      }
    }

    // d
    guard let d = tags["d"] else { throw LeaseRejection(.d, "missing d tag") }
    guard LeasePlaintextCheck.isCount(d.utf8.count, Self.maxDTagBytes) else {
      throw LeaseRejection(.d, "invalid d tag length")
    }

    // expiration
    guard let expirationText = tags["expiration"] else {
      throw LeaseRejection(.expiration, "missing expiration tag")
    }
    guard let expiration = Self.unixSeconds(expirationText) else {
      throw LeaseRejection(.expiration, "expiration must be integer Unix seconds")
    }
    guard expiration > Self.clamped(now, minus: allowedSkew) else {
      throw LeaseRejection(.expiration, "lease already expired")
    }
    guard expiration <= Self.clamped(now, minus: -Int64(limits.maxLeaseTTL)) else {
      throw LeaseRejection(.expiration, "lease ttl too long")
    }

    // exec
    guard let keyID = tags["exec"] else { throw LeaseRejection(.exec, "missing exec tag") }
    guard !keyID.isEmpty else { throw LeaseRejection(.exec, "empty exec tag") }
    let (key, peer): (SecretKey, String)
    if let author {
      guard let entry = descriptor.keys.first(where: { $0.id == keyID }) else {
        throw LeaseRejection(.exec, "unknown executor key")
      }
      (key, peer) = (author, entry.pubkey)
    } else {
      guard let pushKey = pushKeys[keyID] else { throw LeaseRejection(.exec, "unknown executor key") }
      (key, peer) = (pushKey, event.pubkey)
    }

    // decrypt
    guard let text = LeaseCipher.open(event.content, with: key, from: peer) else {
      throw LeaseRejection(.decrypt, "invalid encrypted content")
    }

    // parse
    let object = try Self.parse(text, maxBytes: limits.maxPlaintextLen)

    // members, schema, values, active, each subscription, filter
    let plaintext = try LeasePlaintextCheck.validate(
      object, author: event.pubkey, tenantOrigin: tenantOrigin, descriptor: descriptor)
    let state: OpenedLease.State
    if let active = plaintext.active {
      state = .active(
        appProfile: active.appProfile, transport: active.transport, endpoint: active.endpoint,
        endpointHash: Hex.encode(NostrSHA256.hash(Array(active.endpoint.utf8))),
        subscriptions: active.subscriptions)
    } else {
      state = .tombstone
    }
    return OpenedLease(
      address: OpenedLease.Address(pubkey: event.pubkey, d: d), eventID: event.id, createdAt: event.createdAt,
      expiration: expiration, keyID: keyID, origin: plaintext.origin, generation: plaintext.generation,
      state: state)
  }

  /// The parse step: the length bound, then the strict reader's first error in document order,
  /// then the root type.
  static func parse(_ text: String, maxBytes: Int) throws(LeaseRejection) -> JSONObject {
    guard text.utf8.count <= maxBytes else { throw LeaseRejection(.parse, "plaintext too long") }
    let value: JSONValue
    do {
      value = try JSONReader(maxDepth: maxPlaintextDepth).read(text)
    } catch {
      if error.code == .duplicateKey {
        throw LeaseRejection(.parse, "duplicate object key: \(error.duplicateKey ?? error.field ?? "")")
      }
      throw LeaseRejection(.parse, "lease plaintext is not valid JSON")
    }
    guard case .object(let object) = value else {
      throw LeaseRejection(.parse, "lease plaintext must be an object")
    }
    return object
  }

  /// `0` or `[1-9][0-9]*` that fits in Int64; nil for anything else (no sign, no leading zero).
  static func unixSeconds(_ text: String) -> Int64? {
    let utf8 = text.utf8
    guard let first = utf8.first, utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    else {
      return nil
    }
    guard first != UInt8(ascii: "0") || utf8.count == 1 else { return nil }
    return Int64(text)
  }

  /// `value − amount`, clamped to Int64's range instead of trapping.
  private static func clamped(_ value: Int64, minus amount: Int64) -> Int64 {
    let (result, overflow) = value.subtractingReportingOverflow(amount)
    guard overflow else { return result }
    return amount > 0 ? .min : .max
  }
}
