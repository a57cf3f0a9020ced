import NostrEvent
import NostrJSON

/// The exact client data an App Attest attestation or assertion covers for one gateway request:
/// the app hands `clientDataHash` to `DCAppAttestService`, the gateway rebuilds the same bytes
/// from the request it received and verifies against them. One type on both sides, so the two
/// cannot drift.
///
/// - The installation (`POST /v1/installations`): `nostr-push.installation.v1\n` followed by the
///   compact JSON `{"audience":"<public_url>/v1/installations","app_profile":P,"challenge":C,
///   "endpoint":E,"expires_at":n,"owner":"<owner hex>"}`, keys in that order.
/// - Every other route (`AppAttestRoute`): `nostr-push.<route name>.v1\n` followed by the compact
///   JSON of the request's own fields plus `audience` and `challenge`, keys sorted by their UTF-8
///   bytes.
///
/// Decisions where the spec is silent: "the request's own fields" are the body's members except
/// the App Attest ones (`challenge_id`, `assertion`), which the builder drops if given, so the
/// gateway can pass the body as parsed; `v` is one of them. A field named `audience` or
/// `challenge` is refused, never overwritten. Strings are escaped as `JSONWriter` writes them
/// (NIP-01's common rule). `public_url` is taken without a trailing `/`, as the gateway's
/// configuration holds it.
public struct AppAttestTranscript: Sendable, Hashable {
  /// The body members an assertion's transcript leaves out: the App Attest fields themselves.
  public static let excludedFields: Set<String> = ["challenge_id", "assertion"]

  /// The route the transcript is for.
  public let route: AppAttestRoute
  /// The client data: the domain line and the compact JSON.
  public let clientData: [UInt8]

  /// SHA-256 of `clientData`: what `DCAppAttestService.attestKey` and `generateAssertion` take,
  /// and what the gateway's verifier recomputes.
  public var clientDataHash: [UInt8] { NostrSHA256.hash(clientData) }

  /// The transcript of `POST /v1/installations`: `challenge` as the gateway issued it (32 bytes,
  /// base64url), `endpoint` the device token as sent, `owner` the owner key (64 lowercase hex).
  public static func installation(
    publicURL: String, appProfile: String, challenge: String, endpoint: String, expiresAt: Int64,
    owner: String
  ) throws(AppAttestError) -> AppAttestTranscript {
    try check(publicURL: publicURL, challenge: challenge)
    guard Hex.isLowercaseHex(owner, length: 64) else {
      throw AppAttestError(code: .invalidTranscript, field: "owner", message: "not 64 lowercase hex")
    }
    let object = JSONObject([
      "audience": .string(publicURL + AppAttestRoute.installation.path),
      "app_profile": .string(appProfile),
      "challenge": .string(challenge),
      "endpoint": .string(endpoint),
      "expires_at": .integer(expiresAt),
      "owner": .string(owner),
    ])
    return AppAttestTranscript(route: .installation, object: object)
  }

  /// The transcript of an asserted `route` (not `.installation`): `fields` are the request's
  /// own members (`challenge_id` and `assertion` are dropped), `challenge` as issued.
  public static func assertion(
    route: AppAttestRoute, publicURL: String, challenge: String, fields: JSONObject
  ) throws(AppAttestError) -> AppAttestTranscript {
    guard !route.isAttested else {
      throw AppAttestError(
        code: .invalidTranscript, field: "route", message: "the installation is attested, not asserted")
    }
    try check(publicURL: publicURL, challenge: challenge)
    var members = fields.members.filter { !excludedFields.contains($0.key) }
    for name in ["audience", "challenge"] where fields[name] != nil {
      throw AppAttestError(
        code: .invalidTranscript, field: name, message: "the request may not carry \(name) itself")
    }
    members.append(JSONMember(key: "audience", value: .string(publicURL + route.path)))
    members.append(JSONMember(key: "challenge", value: .string(challenge)))
    members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    return AppAttestTranscript(route: route, object: JSONObject(members))
  }

  private init(route: AppAttestRoute, object: JSONObject) {
    self.route = route
    clientData = Array((route.domain + "\n").utf8) + JSONWriter.bytes(.object(object))
  }

  /// The public URL and the challenge, as the gateway issues them.
  private static func check(publicURL: String, challenge: String) throws(AppAttestError) {
    guard !publicURL.isEmpty, !publicURL.hasSuffix("/") else {
      throw AppAttestError(
        code: .invalidTranscript, field: "public_url", message: "empty, or ending in /")
    }
    guard challenge.utf8.count == 43, !challenge.contains("+"), !challenge.contains("/"),
      AppAttestBase64.decode(challenge)?.count == 32
    else {
      throw AppAttestError(
        code: .invalidTranscript, field: "challenge", message: "not 32 bytes of unpadded base64url")
    }
  }
}
