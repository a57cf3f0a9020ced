import AppAttest
import Foundation
import NostrEvent
import NostrHTTPServer
import NostrPushCore

/// The production push gateway's routes: registration by the owner key (NIP-98), delegations
/// and their sealed `g1.` grants, and the relay's delivery, turned into one APNs request.
///
/// It is a handler, not a server: mount ``routes`` in an ``HTTPServer`` (or call
/// ``handle(_:)`` from a Vapor or Hummingbird route with the request's method, target, headers
/// and body):
/// ```swift
/// let store = try SQLitePushGatewayStore(path: "gateway.sqlite")
/// let keys = try PushGatewayKeys(current: PushGatewaySealingKey(contentsOf: "gateway.key"))
/// let gateway = try PushGateway(
///   publicURL: "https://push.example.org", store: store, keys: keys,
///   apps: ["chat": APNsClient(app: app, transport: transport)])
/// let server = try HTTPServer.start(
///   HTTPServerConfiguration(port: 8443), router: HTTPServerRouter(gateway.routes))
/// ```
///
/// Routes (bodies strict compact JSON ≤ 8192 bytes, else 413; errors `{"error":"<code>"}`):
/// `POST /v1/installations`, `/v1/installations/endpoint`, `/v1/installations/revoke`,
/// `/v1/delegations`, `/v1/delegations/revoke` (NIP-98 by the owner, `u` =
/// `<publicURL><path>` byte for byte, `payload` required, window 60 s, ids burned for 120 s in
/// the store), and `POST /v1/deliveries/apns` (NIP-98 by the grant's relay key, checked as
/// the relay's `GatewayClient` signs it: window 60 s back and 30 s ahead, `payload` and `nonce`
/// required).
///
/// Decisions where the spec is silent:
/// - A NIP-98 failure, a replayed id included, is 401 `invalid_auth` on every route, as the
///   gateway fixture answers; an owner outside the `owners` allowlist is 403
///   `owner_not_allowed`, a delegation to a relay outside `relay_pubkeys` 403
///   `relay_not_allowed`, and a delivery signed by such a relay 401 `invalid_auth`.
/// - The same owner registering the same token again gets its live installation (200) with its
///   expiry raised to the one asked when that is later.
/// - A delegation of the same generation as the stored one replaces it (a new grant; the old
///   one stops working): an app re-delegates after a rotation without raising the generation.
///   At most ``maxDelegationsPerInstallation`` live delegations per installation (429
///   `too_many_delegations`).
/// - A delivery whose `request_id` is being sent by another attempt right now is answered 503
///   `{"status":"retry","retry_after_seconds":n}`; a holder that died leaves the `request_id`
///   to a retry after `inFlightSeconds` (default ``defaultInFlightSeconds``).
/// - A 410 answered without APNs (the epoch already invalid) keeps its `request_id` as a 410
///   from APNs does, and takes no quota.
/// - A token that no longer opens (its key file was removed) is a configuration fault (503):
///   keep a previous key file until every installation sealed under it has rotated, re-registered
///   or expired (at most 90 days).
/// - The quota windows slide: an admission counts for exactly 10 s and 1 h after it, and
///   `retry_after_seconds` is when the oldest counted one leaves the window. Replays, in-flight
///   refusals and 410s answered without APNs are not admissions and take no quota.
/// - A delivery takes two store transactions: the admission before APNs and the outcome after
///   (kept or released, the epoch marked invalid on a 410). If the second fails, the answer
///   stands and the `request_id` stays in flight until `inFlightSeconds` pass.
/// - `/metrics` counts deliveries by outcome (the answer table's rows) and APNs attempts by
///   status class (2xx, 4xx, 5xx, transport error), each attempt counted and timed by the
///   ``MeteredAPNsTransport`` wrapped around each app's transport, the token retry included.
public final class PushGateway: Sendable {
  /// The most live installations per owner.
  public static let maxInstallationsPerOwner = 16
  /// The most live delegations per installation.
  public static let maxDelegationsPerInstallation = 32
  /// The longest installation lifetime: 90 days.
  public static let maxInstallationSeconds: Int64 = 90 * 86_400
  /// The longest delegation lifetime: 31 days.
  public static let maxDelegationSeconds: Int64 = 31 * 86_400
  /// How long a NIP-98 id stays burned: 120 s.
  public static let authBurnSeconds: Int64 = 120
  /// The registration routes' NIP-98 window: 60 s either way.
  public static let registrationAuthWindow: Int64 = 60
  /// The delivery route's NIP-98 window: 60 s back, 30 s ahead (the gateway fixture's).
  public static let deliveryAuthWindow = (back: Int64(60), ahead: Int64(30))
  /// How long an admitted delivery holds its `request_id` before a retry may take it over, by
  /// default: 30 s (past the APNs timeout and its one token retry).
  public static let defaultInFlightSeconds: Int64 = 30
  /// The default time APNs has to answer one delivery (the token retry included).
  public static let defaultAPNsTimeout: Duration = .seconds(10)
  /// How often a configuration fault is logged per app, at most: once a minute.
  public static let configurationFaultLogSeconds: Int64 = 60

  /// The registration paths, in the order ``routes`` lists them.
  public static let registrationPaths = [
    "/v1/installations", "/v1/installations/endpoint", "/v1/installations/revoke", "/v1/delegations",
    "/v1/delegations/revoke",
  ]
  /// The delivery path.
  public static let deliveryPath = "/v1/deliveries/apns"
  /// The App Attest challenge paths (NIP-98 by the owner, like registration).
  public static let challengePaths = ["/v1/installations/challenges", "/v1/delegations/challenges"]

  let publicURL: String
  let store: any PushGatewayStore
  let keys: PushGatewayKeys
  let custody: DeviceTokenCustody
  let apps: [String: APNsClient]
  let appAttest: [String: any AppAttestVerifying]
  let quotaPer10Seconds: Int
  let quotaPerHour: Int
  let owners: Set<String>?
  let relayPubkeys: Set<String>?
  let clock: UnixClock
  let apnsTimeout: Duration
  let inFlightSeconds: Int64
  let log: @Sendable (String) -> Void
  let registrationVerifier: NIP98Verifier
  let deliveryVerifier: NIP98Verifier
  let faultLogged = Locked<[String: Int64]>([:])
  /// The gateway's counters and histograms, for the admin listener's `/metrics` (pass the same
  /// instance to the ``MeteredAPNsTransport`` of each app, which counts the APNs attempts).
  public let metrics: PushGatewayMetrics

  /// A gateway answering at `publicURL` (`https://host[:port]`, no path: NIP-98 `u` tags are
  /// `<publicURL><path>`), keeping state in `store`, sealing with `keys`, sending through one
  /// ``APNsClient`` per app profile.
  ///
  /// `quotaPer10Seconds` and `quotaPerHour` bound admissions per device (defaults 10 and 120);
  /// `owners` and `relayPubkeys`, when given, are allowlists of lower-case hex keys; `clock`
  /// gives Unix time; `apnsTimeout` bounds one APNs delivery; `inFlightSeconds` is how long an
  /// admitted `request_id` is held before a retry may take it over; `log` receives operator messages (never a token, key or id).
  /// `invalid_configuration` (the field named) for a URL with a path or another scheme, no apps,
  /// or a quota outside 1 ≤ per 10 s ≤ per hour ≤ 100 000. `appAttest` names the app profiles
  /// that require App Attest, each with its verifier (app id, environment, trust anchor); a
  /// profile that is not in `apps` is `invalid_configuration` (`app_attest`).
  public init(
    publicURL: String, store: any PushGatewayStore, keys: PushGatewayKeys, apps: [String: APNsClient],
    quotaPer10Seconds: Int = 10, quotaPerHour: Int = 120, owners: Set<String>? = nil,
    relayPubkeys: Set<String>? = nil, clock: UnixClock = .system, apnsTimeout: Duration = defaultAPNsTimeout,
    metrics: PushGatewayMetrics = PushGatewayMetrics(),
    inFlightSeconds: Int64 = defaultInFlightSeconds,
    log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
    appAttest: [String: any AppAttestVerifying] = [:]
  ) throws(PushGatewayError) {
    guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
      url.path.isEmpty, url.query == nil, !publicURL.hasSuffix("/")
    else {
      throw PushGatewayError(
        code: .invalidConfiguration, field: "public_url", message: "must be https://host[:port], no path")
    }
    guard !apps.isEmpty else {
      throw PushGatewayError(code: .invalidConfiguration, field: "apps", message: "at least one app")
    }
    guard Set(appAttest.keys).isSubset(of: Set(apps.keys)) else {
      throw PushGatewayError(
        code: .invalidConfiguration, field: "app_attest", message: "App Attest for an app profile not in apps"
      )
    }
    guard quotaPer10Seconds >= 1, quotaPer10Seconds <= quotaPerHour, quotaPerHour <= 100_000 else {
      throw PushGatewayError(
        code: .invalidConfiguration, field: "quota", message: "need 1 ≤ per_10s ≤ per_hour ≤ 100000")
    }
    self.publicURL = publicURL
    self.store = store
    self.keys = keys
    self.custody = DeviceTokenCustody(keys: keys)
    self.apps = apps
    self.appAttest = appAttest
    self.quotaPer10Seconds = quotaPer10Seconds
    self.quotaPerHour = quotaPerHour
    self.owners = owners
    self.relayPubkeys = relayPubkeys
    self.clock = clock
    self.apnsTimeout = apnsTimeout
    self.metrics = metrics
    self.inFlightSeconds = max(1, inFlightSeconds)
    self.log = log
    registrationVerifier = NIP98Verifier(
      windowBack: Self.registrationAuthWindow, windowAhead: Self.registrationAuthWindow, urlMatch: .exact,
      methodMatch: .exact, requirePayload: true, requireNonce: false, replays: StoreBurnedReplays())
    deliveryVerifier = NIP98Verifier(
      windowBack: Self.deliveryAuthWindow.back, windowAhead: Self.deliveryAuthWindow.ahead, urlMatch: .exact,
      methodMatch: .exact, requirePayload: true, requireNonce: true, replays: StoreBurnedReplays())
  }

  /// The eight `POST` routes (six, and the two App Attest challenge routes), each taking bodies up to 8192 bytes, for an ``HTTPServerRouter``.
  public var routes: [HTTPServerRoute] {
    (Self.registrationPaths + Self.challengePaths + [Self.deliveryPath]).map { path in
      HTTPServerRoute("POST", path, maxBodyBytes: GatewayRequestBody.maxBytes) { [self] request in
        await handle(request)
      }
    }
  }

  /// Answers one request to any of the gateway's paths (404 `not_found` for another path, 405
  /// for another method, 413 for a body over 8192 bytes).
  public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
    let reply = await reply(to: request)
    return .json(status: reply.status, reply.body)
  }

  /// The reply to `request`.
  func reply(to request: HTTPServerRequest) async -> GatewayReply {
    let path = String(request.path)
    let known = Self.registrationPaths + Self.challengePaths + [Self.deliveryPath]
    let route = known.contains(path) ? path : nil
    guard let route else { return .notFound }
    guard request.method == "POST" else { return .error(405, "method_not_allowed") }
    guard request.body.count <= GatewayRequestBody.maxBytes else { return .error(413, "payload_too_large") }
    if route == Self.deliveryPath { return await deliver(request) }
    return await register(request, route: route)
  }

  /// The `burn` of an accepted auth event: kept 120 s from now (past its `created_at` window).
  func burn(_ event: Event, now: Int64) -> AuthBurn {
    AuthBurn(id: event.id, expiresAt: now + Self.authBurnSeconds)
  }

  /// 16 random bytes in hex: handles and delegation ids.
  static func randomIdentifier() -> String {
    Hex.encode(SystemRandom.bytes(16))
  }

  /// How often ``runReaper(every:)`` reaps by default: every 5 minutes.
  public static let reapInterval: Duration = .seconds(300)

  /// Deletes rows past their use; the count, or the store's error.
  public func reap() async throws(PushGatewayError) -> Int {
    try await store.reap(now: clock.now())
  }

  /// Reaps every `interval` until the task is cancelled (a failed pass is logged and the next one
  /// tried): start it beside the server, cancel it when the server stops.
  public func runReaper(every interval: Duration = reapInterval) async {
    while !Task.isCancelled {
      do {
        try await Task.sleep(for: interval)
      } catch {
        return
      }
      do {
        _ = try await reap()
      } catch {
        log("gateway store: \(error.code) while reaping")
      }
    }
  }
}
