import AppAttest
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore

/// The app's side of a push gateway's registration routes: `register` a device token,
/// `rotate` it, `delegate` it to a relay (getting the sealed grant the lease carries) and
/// `revoke`, each signed with NIP-98 by the account key (the key that authors the lease) and
/// sent through an ``HTTPTransport`` by a deadline.
///
/// ```swift
/// let registrar = try GatewayRegistrar(baseURL: "https://push.example.org", key: accountKey)
/// let answer = try await registrar.register(
///   appProfile: "chat", deviceToken: tokenHex, expiresAt: now + 30 * 86_400, deadline: .now + .seconds(10))
/// guard case .created(let installation) = answer else { … }
/// ```
///
/// Each answer of the route table is a case of ``GatewayRegistrationAnswer``; a request that got
/// no answer is `.unreachable`. Inputs are checked before anything is sent (a malformed one
/// throws `invalid_argument`), so the gateway sees only well-formed bodies: strict compact JSON
/// with the members in the spec's order.
///
/// With an App Attest provider (`appAttest`, for a gateway whose app requires App Attest), each
/// route first fetches a challenge (`POST /v1/installations/challenges` for `register`,
/// `POST /v1/delegations/challenges` for the installation's other routes), builds the client data
/// with `AppAttestTranscript` (the type the gateway checks with) and sends `challenge_id`, `key_id`
/// and `attestation` with `register`, `challenge_id` and `assertion` with the others. The
/// provider's failures throw (`attestation_unsupported`, `attestation_key_invalid`: discard the
/// key and register again, `attestation_service_failed`); the gateway's refusals are the answers
/// ``GatewayRegistrationAnswer/attestationRequired`` and
/// ``GatewayRegistrationAnswer/invalidAttestation``. Without a provider nothing of this is sent.
/// Decisions where the spec is silent: `key_id` is standard base64 (as `DCAppAttestService`
/// spells key ids), `attestation` and `assertion` base64url without padding (the challenge's
/// alphabet); a challenge refused (404, 429, 401…) is the route's answer, nothing more is sent.
///
/// Decision: the registrar is a small module of its own (`PushRegistration`), not part of
/// `PushLease`: an app links it next to `PushLease`, the Notification Service Extension needs
/// neither, and `PushLease` stays free of HTTP. The account's clock gives NIP-98's `created_at`.
public struct GatewayRegistrar: Sendable {
  /// The largest answer read: the route's bodies are a few hundred bytes.
  public static let maxResponseBytes = 16 * 1024
  /// The lowest and highest generation a gateway takes (JSON-safe integers).
  public static let generationRange: ClosedRange<Int64> = 1...((1 << 53) - 1)

  /// The gateway's origin as given, exactly the gateway's `public_url`.
  public let baseURL: String
  private let key: SecretKey
  private let transport: any HTTPTransport
  private let clock: UnixClock
  private let appAttest: (any AppAttestProvider)?

  /// A registrar for the gateway at `baseURL` (`https://host[:port]`, `http` only on loopback,
  /// canonical form, nothing after it: NIP-98 signs `<baseURL><path>` byte for byte), signing
  /// with `key`, sending through `transport`, timed by `clock`; attesting and asserting through
  /// `appAttest` when given (a gateway whose app requires App Attest).
  public init(
    baseURL: String, key: SecretKey, transport: any HTTPTransport = URLSessionHTTPTransport.shared,
    clock: UnixClock = .system, appAttest: (any AppAttestProvider)? = nil
  ) throws(GatewayRegistrationError) {
    guard baseURL.hasPrefix("https://") || baseURL.hasPrefix("http://"),
      let (origin, rest, _) = RelayOrigin.parse(baseURL), rest.isEmpty, origin.description == baseURL
    else {
      throw GatewayRegistrationError(
        code: .invalidGatewayURL, field: "gateway",
        message:
          "must be https://host[:port] in canonical form (lower case, no default port), nothing after it")
    }
    guard origin.isSecure || origin.isLoopback else {
      throw GatewayRegistrationError(
        code: .invalidGatewayURL, field: "gateway", message: "http only on loopback")
    }
    self.baseURL = baseURL
    self.key = key
    self.transport = transport
    self.clock = clock
    self.appAttest = appAttest
  }

  /// `POST /v1/installations`: registers `deviceToken` (APNs token, 64 to 200 lower-case hex
  /// digits) for `appProfile` until `expiresAt` (the gateway takes at most 90 days ahead).
  public func register(
    appProfile: String, deviceToken: String, expiresAt: Int64, deadline: ContinuousClock.Instant
  )
    async throws(GatewayRegistrationError) -> GatewayRegistrationAnswer<GatewayInstallation>
  {
    try Self.check(profile: appProfile)
    try Self.check(token: deviceToken)
    var members = [
      JSONMember(key: "v", value: .integer(1)), JSONMember(key: "app_profile", value: .string(appProfile)),
      JSONMember(key: "endpoint", value: .string(deviceToken)),
      JSONMember(key: "expires_at", value: .integer(expiresAt)),
    ]
    if let appAttest {
      let challengeBody = [
        JSONMember(key: "v", value: .integer(1)), JSONMember(key: "app_profile", value: .string(appProfile)),
      ]
      let answer = try await challenge("/v1/installations/challenges", challengeBody, deadline: deadline)
      guard case .created(let challenge) = answer else { return answer.failure() }
      let transcript: AppAttestTranscript
      do {
        transcript = try AppAttestTranscript.installation(
          publicURL: baseURL, appProfile: appProfile, challenge: challenge.text, endpoint: deviceToken,
          expiresAt: expiresAt, owner: key.publicKeyHex)
      } catch {
        throw GatewayRegistrationError(code: .invalidArgument, field: error.field, message: error.message)
      }
      let attestation: [UInt8]
      let keyID: [UInt8]
      do {
        keyID = try await appAttest.keyID()
        attestation = try await appAttest.attest(keyID: keyID, clientDataHash: transcript.clientDataHash)
      } catch {
        throw Self.providerFailure(error)
      }
      members += [
        JSONMember(key: "challenge_id", value: .string(challenge.id)),
        JSONMember(key: "key_id", value: .string(AppAttestBase64.encoded(keyID))),
        JSONMember(key: "attestation", value: .string(AppAttestBase64.urlEncoded(attestation))),
      ]
    }
    return try await post("/v1/installations", Self.body(members), deadline: deadline) { object in
      guard let handle = object["installation_handle"]?.stringValue, Hex.isLowercaseHex(handle, length: 32),
        let epoch = object["endpoint_epoch"]?.integerValue, epoch >= 1,
        let expiresAt = object["expires_at"]?.integerValue
      else { return nil }
      return GatewayInstallation(handle: handle, endpointEpoch: epoch, expiresAt: expiresAt)
    }
  }

  /// `POST /v1/installations/endpoint`: the installation's device token changed to
  /// `deviceToken`; grants of the old epoch stop working.
  public func rotate(installationHandle: String, deviceToken: String, deadline: ContinuousClock.Instant)
    async throws(GatewayRegistrationError) -> GatewayRegistrationAnswer<GatewayEndpointRotation>
  {
    try Self.check(handle: installationHandle)
    try Self.check(token: deviceToken)
    let prepared: Prepared<GatewayEndpointRotation> = try await asserted(
      .installationEndpoint, handle: installationHandle,
      [
        JSONMember(key: "v", value: .integer(1)),
        JSONMember(key: "installation_handle", value: .string(installationHandle)),
        JSONMember(key: "endpoint", value: .string(deviceToken)),
      ], deadline: deadline)
    guard case .body(let body) = prepared else { return prepared.answer }
    return try await post("/v1/installations/endpoint", body, deadline: deadline) { object in
      guard let epoch = object["endpoint_epoch"]?.integerValue, epoch >= 1 else { return nil }
      return GatewayEndpointRotation(endpointEpoch: epoch)
    }
  }

  /// `POST /v1/delegations`: a grant for the relay `relayPubkey` (64 lower-case hex digits)
  /// until `expiresAt` (at most 31 days ahead and within the installation), at `generation`,
  /// which only rises.
  public func delegate(
    installationHandle: String, relayPubkey: String, generation: Int64, expiresAt: Int64,
    deadline: ContinuousClock.Instant
  ) async throws(GatewayRegistrationError) -> GatewayRegistrationAnswer<GatewayDelegation> {
    try Self.check(handle: installationHandle)
    try Self.check(relay: relayPubkey)
    guard Self.generationRange.contains(generation) else {
      throw GatewayRegistrationError(
        code: .invalidArgument, field: "generation", message: "must be 1 to 2^53 − 1")
    }
    let prepared: Prepared<GatewayDelegation> = try await asserted(
      .delegation, handle: installationHandle,
      [
        JSONMember(key: "v", value: .integer(1)),
        JSONMember(key: "installation_handle", value: .string(installationHandle)),
        JSONMember(key: "relay_pubkey", value: .string(relayPubkey)),
        JSONMember(key: "generation", value: .integer(generation)),
        JSONMember(key: "expires_at", value: .integer(expiresAt)),
      ], deadline: deadline)
    guard case .body(let body) = prepared else { return prepared.answer }
    return try await post("/v1/delegations", body, deadline: deadline) { object in
      guard let grant = object["endpoint_grant"]?.stringValue, grant.hasPrefix("g1."),
        grant.utf8.count <= 4096,
        let expiresAt = object["expires_at"]?.integerValue
      else { return nil }
      return GatewayDelegation(endpointGrant: grant, expiresAt: expiresAt)
    }
  }

  /// `POST /v1/delegations/revoke` when `relayPubkey` is given (that relay's grant stops
  /// working), else `POST /v1/installations/revoke` (the installation and all its grants).
  public func revoke(
    installationHandle: String, relayPubkey: String? = nil, deadline: ContinuousClock.Instant
  )
    async throws(GatewayRegistrationError) -> GatewayRegistrationAnswer<GatewayRevocation>
  {
    try Self.check(handle: installationHandle)
    var members = [
      JSONMember(key: "v", value: .integer(1)),
      JSONMember(key: "installation_handle", value: .string(installationHandle)),
    ]
    if let relayPubkey {
      try Self.check(relay: relayPubkey)
      members.append(JSONMember(key: "relay_pubkey", value: .string(relayPubkey)))
    }
    let path = relayPubkey == nil ? "/v1/installations/revoke" : "/v1/delegations/revoke"
    let prepared: Prepared<GatewayRevocation> = try await asserted(
      relayPubkey == nil ? .installationRevoke : .delegationRevoke, handle: installationHandle, members,
      deadline: deadline)
    guard case .body(let body) = prepared else { return prepared.answer }
    return try await post(path, body, deadline: deadline) { object in
      object["status"]?.stringValue == "revoked" ? GatewayRevocation() : nil
    }
  }

  /// A route's body, or the answer that ended it before it was sent (its challenge was refused).
  private enum Prepared<Value: Sendable & Hashable> {
    case body([UInt8])
    case answered(GatewayRegistrationAnswer<Value>)

    /// The answer of `.answered` (never asked of `.body`).
    var answer: GatewayRegistrationAnswer<Value> {
      if case .answered(let answer) = self { return answer }
      return .unexpected(status: 0, error: nil)
    }
  }

  /// A challenge as the gateway issued it.
  private struct IssuedChallenge: Sendable, Hashable {
    let id: String
    let text: String
  }

  /// The body of an asserted `route` on `handle`: `members` as they are without a provider; with
  /// one, a delegation challenge fetched, the transcript asserted, `challenge_id` and `assertion`
  /// appended.
  private func asserted<Value: Sendable & Hashable>(
    _ route: AppAttestRoute, handle: String, _ members: [JSONMember], deadline: ContinuousClock.Instant
  ) async throws(GatewayRegistrationError) -> Prepared<Value> {
    guard let appAttest else { return .body(Self.body(members)) }
    let challengeBody = [
      JSONMember(key: "v", value: .integer(1)),
      JSONMember(key: "installation_handle", value: .string(handle)),
    ]
    let answer = try await challenge("/v1/delegations/challenges", challengeBody, deadline: deadline)
    guard case .created(let challenge) = answer else { return .answered(answer.failure()) }
    let transcript: AppAttestTranscript
    do {
      transcript = try AppAttestTranscript.assertion(
        route: route, publicURL: baseURL, challenge: challenge.text, fields: JSONObject(members))
    } catch {
      throw GatewayRegistrationError(code: .invalidArgument, field: error.field, message: error.message)
    }
    let assertion: [UInt8]
    do {
      let keyID = try await appAttest.keyID()
      assertion = try await appAttest.assert(keyID: keyID, clientDataHash: transcript.clientDataHash)
    } catch {
      throw Self.providerFailure(error)
    }
    return .body(
      Self.body(
        members + [
          JSONMember(key: "challenge_id", value: .string(challenge.id)),
          JSONMember(key: "assertion", value: .string(AppAttestBase64.urlEncoded(assertion))),
        ]))
  }

  /// `POST path` for a challenge: 201 `{"challenge_id","challenge","expires_at"}`, the id 32
  /// lowercase hex digits and the challenge 32 bytes of unpadded base64url.
  private func challenge(_ path: String, _ members: [JSONMember], deadline: ContinuousClock.Instant)
    async throws(GatewayRegistrationError) -> GatewayRegistrationAnswer<IssuedChallenge>
  {
    try await post(path, Self.body(members), deadline: deadline) { object in
      guard let id = object["challenge_id"]?.stringValue, AppAttestChallenge.isID(id),
        let text = object["challenge"]?.stringValue, text.utf8.count == 43,
        !text.contains("+"), !text.contains("/"), AppAttestBase64.decode(text)?.count == 32,
        object["expires_at"]?.integerValue != nil
      else { return nil }
      return IssuedChallenge(id: id, text: text)
    }
  }

  /// The provider's error as the registrar's.
  private static func providerFailure(_ error: AppAttestError) -> GatewayRegistrationError {
    let code: ErrorCode<GatewayRegistrationErrorDomain> =
      switch error.code {
      case .attestationUnsupported: .attestationUnsupported
      case .attestationKeyInvalid: .attestationKeyInvalid
      default: .attestationServiceFailed
      }
    return GatewayRegistrationError(
      code: code, field: "app_attest", message: "\(error.code): \(error.message)")
  }

  /// The request `post` sends for `body` on `path`, signed now (exposed for tests of its bytes).
  func request(_ path: String, _ body: [UInt8]) throws(GatewayRegistrationError) -> HTTPTransportRequest {
    let url = baseURL + path
    let authorization: String
    do {
      authorization = try NIP98.authorizationHeader(
        url: url, method: "POST", body: body, key: key, now: clock.now())
    } catch {
      throw GatewayRegistrationError(code: .signingFailed, message: "cannot sign the NIP-98 event")
    }
    return HTTPTransportRequest(
      url: url, method: "POST",
      headers: ["Content-Type": "application/json", "Authorization": authorization],
      body: body, maxResponseBytes: Self.maxResponseBytes)
  }

  private func post<Value: Sendable & Hashable>(
    _ path: String, _ body: [UInt8], deadline: ContinuousClock.Instant,
    success: (JSONObject) -> Value?
  ) async throws(GatewayRegistrationError) -> GatewayRegistrationAnswer<Value> {
    let request = try request(path, body)
    let response: HTTPTransportResponse
    do {
      response = try await transport.send(request, deadline: deadline)
    } catch {
      return .unreachable(error)
    }
    return Self.classify(response, success: success)
  }

  /// The answer of `response`; `success` reads a 200 or 201 body.
  static func classify<Value: Sendable & Hashable>(
    _ response: HTTPTransportResponse, success: (JSONObject) -> Value?
  ) -> GatewayRegistrationAnswer<Value> {
    let object = (try? JSONReader(maxDepth: 4, maxBytes: maxResponseBytes).read(response.body))?.objectValue
    let error = object?["error"]?.stringValue.map { String($0.prefix(64)) }
    switch (response.status, error) {
    case (200, _), (201, _):
      guard let object, let value = success(object) else {
        return .unexpected(status: response.status, error: nil)
      }
      return response.status == 201 ? .created(value) : .done(value)
    case (409, "installation_conflict"): return .installationConflict
    case (409, "stale_generation"): return .staleGeneration
    case (429, "too_many_installations"): return .tooManyInstallations
    case (429, "too_many_delegations"): return .tooManyDelegations
    case (429, "too_many_challenges"): return .tooManyChallenges
    case (404, "not_found"): return .notFound
    case (401, "attestation_required"): return .attestationRequired
    case (401, "invalid_attestation"): return .invalidAttestation
    case (401, _): return .unauthorized
    case (403, "owner_not_allowed"): return .ownerNotAllowed
    case (403, "relay_not_allowed"): return .relayNotAllowed
    case (400, _), (413, _): return .invalidRequest(status: response.status)
    case (503, _): return .unavailable
    default: return .unexpected(status: response.status, error: error)
    }
  }

  private static func body(_ members: [JSONMember]) -> [UInt8] {
    JSONWriter.bytes(.object(JSONObject(members)))
  }

  private static func check(profile: String) throws(GatewayRegistrationError) {
    guard (1...64).contains(profile.utf8.count),
      profile.utf8.allSatisfy({
        (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2E
          || $0 == 0x5F || $0 == 0x2D
      })
    else {
      throw GatewayRegistrationError(
        code: .invalidArgument, field: "app_profile", message: "1 to 64 of A–Z a–z 0–9 . _ -")
    }
  }

  private static func check(token: String) throws(GatewayRegistrationError) {
    let count = token.utf8.count
    guard (64...200).contains(count), count % 2 == 0, Hex.isLowercaseHex(token, length: count) else {
      throw GatewayRegistrationError(
        code: .invalidArgument, field: "endpoint",
        message: "a device token is 64 to 200 lower-case hex digits")
    }
  }

  private static func check(handle: String) throws(GatewayRegistrationError) {
    guard Hex.isLowercaseHex(handle, length: 32) else {
      throw GatewayRegistrationError(
        code: .invalidArgument, field: "installation_handle", message: "32 lower-case hex digits")
    }
  }

  private static func check(relay: String) throws(GatewayRegistrationError) {
    guard Hex.isLowercaseHex(relay, length: 64) else {
      throw GatewayRegistrationError(
        code: .invalidArgument, field: "relay_pubkey", message: "64 lower-case hex digits")
    }
  }
}
