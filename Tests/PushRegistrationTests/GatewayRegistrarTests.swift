import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import PushRegistration
import Testing

/// Records each request and answers with the scripted response (or error).
final class ScriptedHTTPTransport: HTTPTransport, @unchecked Sendable {
  private let lock = NSLock()
  private var recorded: [HTTPTransportRequest] = []
  private let answer: Result<HTTPTransportResponse, HTTPTransportError>

  init(status: Int, body: String) {
    answer = .success(HTTPTransportResponse(status: status, body: Array(body.utf8)))
  }

  init(error: HTTPTransportError) { answer = .failure(error) }

  var requests: [HTTPTransportRequest] { lock.withLock { recorded } }

  func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant)
    async throws(HTTPTransportError)
    -> HTTPTransportResponse
  {
    lock.withLock { recorded.append(request) }
    return try answer.get()
  }
}

@Suite struct GatewayRegistrarRequestTests {
  static let token = String(repeating: "0a", count: 32)
  static let handle = String(repeating: "5c", count: 16)
  static let relay = String(repeating: "7e", count: 32)
  static let now: Int64 = 1_800_000_000

  /// Checks the one recorded request: URL, method, content type, the exact body, and a NIP-98
  /// header that a real verifier accepts for that URL and body, signed by `key` at `now`.
  func expectRequest(_ transport: ScriptedHTTPTransport, key: SecretKey, path: String, body: String) throws {
    #expect(transport.requests.count == 1)
    let request = try #require(transport.requests.first)
    #expect(request.url == "https://push.example.org" + path)
    #expect(request.method == "POST")
    #expect(request.headers["Content-Type"] == "application/json")
    #expect(String(decoding: request.body ?? [], as: UTF8.self) == body)
    let event = try NIP98Verifier(window: 60).verify(
      header: request.headers["Authorization"], url: "https://push.example.org" + path, method: "POST",
      body: request.body, now: Self.now)
    #expect(event.pubkey == key.publicKeyHex)
    #expect(event.createdAt == Self.now)
    #expect(event.tags.contains(["u", "https://push.example.org" + path]))
    #expect(event.tags.contains { $0.first == "payload" })
    // The same header does not verify for another path: the check can fail.
    #expect(throws: NIP98Error.self) {
      try NIP98Verifier(window: 60).verify(
        header: request.headers["Authorization"], url: "https://push.example.org/v1/other", method: "POST",
        body: request.body, now: Self.now)
    }
  }

  func registrar(_ transport: ScriptedHTTPTransport, key: SecretKey) throws -> GatewayRegistrar {
    try GatewayRegistrar(
      baseURL: "https://push.example.org", key: key, transport: transport, clock: .fixed(Self.now))
  }

  @Test func registerSendsTheExactBody() async throws {
    let key = SecretKey.generate()
    let transport = ScriptedHTTPTransport(
      status: 201,
      body: #"{"installation_handle":"\#(Self.handle)","endpoint_epoch":1,"expires_at":1800086400}"#)
    let answer = try await registrar(transport, key: key).register(
      appProfile: "chat", deviceToken: Self.token, expiresAt: 1_800_086_400, deadline: .now + .seconds(5))
    try expectRequest(
      transport, key: key, path: "/v1/installations",
      body: #"{"v":1,"app_profile":"chat","endpoint":"\#(Self.token)","expires_at":1800086400}"#)
    guard case .created(let installation) = answer else {
      Issue.record("expected created, got \(answer)")
      return
    }
    #expect(installation.handle == Self.handle && installation.endpointEpoch == 1)
    #expect(installation.expiresAt == 1_800_086_400)
  }

  @Test func rotateSendsTheExactBody() async throws {
    let key = SecretKey.generate()
    let transport = ScriptedHTTPTransport(status: 200, body: #"{"endpoint_epoch":2}"#)
    let answer = try await registrar(transport, key: key).rotate(
      installationHandle: Self.handle, deviceToken: Self.token, deadline: .now + .seconds(5))
    try expectRequest(
      transport, key: key, path: "/v1/installations/endpoint",
      body: #"{"v":1,"installation_handle":"\#(Self.handle)","endpoint":"\#(Self.token)"}"#)
    guard case .done(let rotation) = answer else {
      Issue.record("expected done, got \(answer)")
      return
    }
    #expect(rotation.endpointEpoch == 2)
  }

  @Test func delegateSendsTheExactBody() async throws {
    let key = SecretKey.generate()
    let transport = ScriptedHTTPTransport(
      status: 201, body: #"{"endpoint_grant":"g1.k.abc","expires_at":1800003600}"#)
    let answer = try await registrar(transport, key: key).delegate(
      installationHandle: Self.handle, relayPubkey: Self.relay, generation: 3, expiresAt: 1_800_003_600,
      deadline: .now + .seconds(5))
    try expectRequest(
      transport, key: key, path: "/v1/delegations",
      body:
        #"{"v":1,"installation_handle":"\#(Self.handle)","relay_pubkey":"\#(Self.relay)","generation":3,"expires_at":1800003600}"#
    )
    guard case .created(let delegation) = answer else {
      Issue.record("expected created, got \(answer)")
      return
    }
    #expect(delegation.endpointGrant == "g1.k.abc" && delegation.expiresAt == 1_800_003_600)
  }

  @Test func revokeSendsTheExactBodyOfEachRoute() async throws {
    let key = SecretKey.generate()
    let one = ScriptedHTTPTransport(status: 200, body: #"{"status":"revoked"}"#)
    #expect(
      try await registrar(one, key: key).revoke(
        installationHandle: Self.handle, relayPubkey: Self.relay, deadline: .now + .seconds(5))
        == .done(GatewayRevocation()))
    try expectRequest(
      one, key: key, path: "/v1/delegations/revoke",
      body: #"{"v":1,"installation_handle":"\#(Self.handle)","relay_pubkey":"\#(Self.relay)"}"#)
    let all = ScriptedHTTPTransport(status: 200, body: #"{"status":"revoked"}"#)
    #expect(
      try await registrar(all, key: key).revoke(installationHandle: Self.handle, deadline: .now + .seconds(5))
        == .done(GatewayRevocation()))
    try expectRequest(
      all, key: key, path: "/v1/installations/revoke",
      body: #"{"v":1,"installation_handle":"\#(Self.handle)"}"#)
  }

  @Test(arguments: [
    ("token", "ABCD"), ("token", String(repeating: "0A", count: 32)),
    ("token", String(repeating: "0", count: 63)),
    ("profile", "chat app"), ("profile", ""),
  ])
  func refusesAMalformedInputBeforeSending(_ what: String, _ value: String) async throws {
    let transport = ScriptedHTTPTransport(status: 201, body: "{}")
    let registrar = try registrar(transport, key: SecretKey.generate())
    let field = what == "token" ? "endpoint" : "app_profile"
    await #expect(throws: GatewayRegistrationError(code: .invalidArgument, field: field, message: "")) {
      _ = try await registrar.register(
        appProfile: what == "profile" ? value : "chat", deviceToken: what == "token" ? value : Self.token,
        expiresAt: Self.now + 60, deadline: .now + .seconds(5))
    }
    #expect(transport.requests.isEmpty)
  }

  @Test(arguments: [
    "http://push.example.org", "https://push.example.org/", "https://push.example.org/v1",
    "ftp://push.example.org",
    "https://Push.example.org", "https://push.example.org:443",
  ])
  func refusesAGatewayURLThatIsNotACanonicalOrigin(_ url: String) {
    #expect(throws: GatewayRegistrationError(code: .invalidGatewayURL, field: "gateway", message: "")) {
      try GatewayRegistrar(baseURL: url, key: SecretKey.generate())
    }
  }

  @Test func takesPlainHTTPOnLoopback() throws {
    let registrar = try GatewayRegistrar(baseURL: "http://127.0.0.1:8443", key: SecretKey.generate())
    #expect(registrar.baseURL == "http://127.0.0.1:8443")
  }
}

/// Each answer of the route table, classified: a scripted gateway answers one request.
@Suite struct GatewayRegistrarAnswerTests {
  static let handle = String(repeating: "5c", count: 16)
  static let relay = String(repeating: "7e", count: 32)

  static let delegateAnswers: [(Int, String, GatewayRegistrationAnswer<GatewayDelegation>)] = [
    (409, #"{"error":"stale_generation"}"#, .staleGeneration),
    (429, #"{"error":"too_many_delegations"}"#, .tooManyDelegations),
    (404, #"{"error":"not_found"}"#, .notFound),
    (403, #"{"error":"relay_not_allowed"}"#, .relayNotAllowed),
    (403, #"{"error":"owner_not_allowed"}"#, .ownerNotAllowed),
    (401, #"{"error":"invalid_auth"}"#, .unauthorized),
    (400, #"{"error":"invalid_request"}"#, .invalidRequest(status: 400)),
    (413, #"{"error":"payload_too_large"}"#, .invalidRequest(status: 413)),
    (503, #"{"error":"temporarily_unavailable"}"#, .unavailable),
    (201, #"{"endpoint_grant":"x","expires_at":1}"#, .unexpected(status: 201, error: nil)),
    (200, "not json", .unexpected(status: 200, error: nil)),
    (418, #"{"error":"teapot"}"#, .unexpected(status: 418, error: "teapot")),
    (409, #"{"error":"installation_conflict"}"#, .installationConflict),
  ]

  @Test(arguments: delegateAnswers)
  func classifiesEachDelegationAnswer(
    _ status: Int, _ body: String, _ expected: GatewayRegistrationAnswer<GatewayDelegation>
  ) async throws {
    let transport = ScriptedHTTPTransport(status: status, body: body)
    let registrar = try GatewayRegistrar(
      baseURL: "https://push.example.org", key: SecretKey.generate(), transport: transport)
    let answer = try await registrar.delegate(
      installationHandle: Self.handle, relayPubkey: Self.relay, generation: 1, expiresAt: 1_900_000_000,
      deadline: .now + .seconds(5))
    #expect(answer == expected)
  }

  static let registerAnswers: [(Int, String, String)] = [
    (200, #"{"installation_handle":"\#(handle)","endpoint_epoch":4,"expires_at":5}"#, "done"),
    (409, #"{"error":"installation_conflict"}"#, "conflict"),
    (429, #"{"error":"too_many_installations"}"#, "tooMany"),
  ]

  @Test(arguments: registerAnswers)
  func classifiesEachRegistrationAnswer(_ status: Int, _ body: String, _ expected: String) async throws {
    let transport = ScriptedHTTPTransport(status: status, body: body)
    let registrar = try GatewayRegistrar(
      baseURL: "https://push.example.org", key: SecretKey.generate(), transport: transport)
    let answer = try await registrar.register(
      appProfile: "chat", deviceToken: String(repeating: "ab", count: 32), expiresAt: 1_900_000_000,
      deadline: .now + .seconds(5))
    switch (answer, expected) {
    case (.done(let installation), "done"):
      #expect(installation.endpointEpoch == 4 && installation.handle == Self.handle)
    case (.installationConflict, "conflict"), (.tooManyInstallations, "tooMany"): break
    default: Issue.record("\(status) gave \(answer), expected \(expected)")
    }
  }

  @Test func aTransportFailureIsUnreachable() async throws {
    let transport = ScriptedHTTPTransport(error: HTTPTransportError(code: .timeout, message: "late"))
    let registrar = try GatewayRegistrar(
      baseURL: "https://push.example.org", key: SecretKey.generate(), transport: transport)
    let answer = try await registrar.revoke(installationHandle: Self.handle, deadline: .now + .seconds(5))
    guard case .unreachable(let error) = answer else {
      Issue.record("expected unreachable, got \(answer)")
      return
    }
    #expect(error.code == .timeout)
  }
}
