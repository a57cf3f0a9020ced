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

  /// A registrar for the gateway at `baseURL` (`https://host[:port]`, `http` only on loopback,
  /// canonical form, nothing after it: NIP-98 signs `<baseURL><path>` byte for byte), signing
  /// with `key`, sending through `transport`, timed by `clock`.
  public init(
    baseURL: String, key: SecretKey, transport: any HTTPTransport = URLSessionHTTPTransport.shared,
    clock: UnixClock = .system
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
    let body = Self.body([
      JSONMember(key: "v", value: .integer(1)), JSONMember(key: "app_profile", value: .string(appProfile)),
      JSONMember(key: "endpoint", value: .string(deviceToken)),
      JSONMember(key: "expires_at", value: .integer(expiresAt)),
    ])
    return try await post("/v1/installations", body, deadline: deadline) { object in
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
    let body = Self.body([
      JSONMember(key: "v", value: .integer(1)),
      JSONMember(key: "installation_handle", value: .string(installationHandle)),
      JSONMember(key: "endpoint", value: .string(deviceToken)),
    ])
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
    let body = Self.body([
      JSONMember(key: "v", value: .integer(1)),
      JSONMember(key: "installation_handle", value: .string(installationHandle)),
      JSONMember(key: "relay_pubkey", value: .string(relayPubkey)),
      JSONMember(key: "generation", value: .integer(generation)),
      JSONMember(key: "expires_at", value: .integer(expiresAt)),
    ])
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
    return try await post(path, Self.body(members), deadline: deadline) { object in
      object["status"]?.stringValue == "revoked" ? GatewayRevocation() : nil
    }
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
    case (404, "not_found"): return .notFound
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
