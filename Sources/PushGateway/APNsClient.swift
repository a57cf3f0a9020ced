import NostrHTTP
import NostrPushCore

/// Sends wakes of one app to APNs and says what became of each, in the answer table's terms.
///
/// Each request carries exactly `authorization: bearer <jwt>` (token auth only), `apns-topic`,
/// `apns-push-type: alert`, `apns-priority: 10`, `apns-expiration` = min(the wake's expiry,
/// now + 3600) and `apns-id` = the relay's `request_id`, to `/3/device/<token>` with the app's
/// constant body. Under token auth a `403 ExpiredProviderToken` gets exactly one retry, with a
/// new token only when the failing one is still current and at least 20 minutes old (else the
/// answer stands: a configuration fault). A transport failure (timeout, reset, refused TLS) is a
/// retry for the relay: nothing says APNs took the wake.
public struct APNsClient: Sendable {
  /// The longest `apns-expiration` ahead of now: one hour.
  public static let maxExpirationSeconds: Int64 = 3600

  private let app: APNsApp
  private let transport: any APNsTransport
  private let clock: UnixClock

  /// A client sending `app`'s wakes through `transport`, timed by `clock`.
  public init(app: APNsApp, transport: any APNsTransport, clock: UnixClock = .system) {
    self.app = app
    self.transport = transport
    self.clock = clock
  }

  /// Sends `wake` by `deadline`; the outcome, never an error (a token that cannot be signed is
  /// a configuration fault).
  public func deliver(_ wake: APNsWake, deadline: ContinuousClock.Instant) async -> APNsOutcome {
    switch app.credential {
    case .certificate:
      return await send(wake, token: nil, deadline: deadline).outcome
    case .token(let tokens):
      let first: APNsProviderToken
      do {
        first = try await tokens.token()
      } catch {
        return .configurationFault(reason: "signing: \(error.code)")
      }
      let attempt = await send(wake, token: first, deadline: deadline)
      guard attempt.response?.status == 403,
        APNsOutcome.reason(in: attempt.response?.body ?? []) == "ExpiredProviderToken"
      else { return attempt.outcome }
      let replacement: APNsProviderToken?
      do {
        replacement = try await tokens.replacing(first)
      } catch {
        return .configurationFault(reason: "signing: \(error.code)")
      }
      guard let replacement else { return attempt.outcome }
      return await send(wake, token: replacement, deadline: deadline).outcome
    }
  }

  /// The request for `wake` with `token` (nil under certificate auth), as sent.
  func request(for wake: APNsWake, token: APNsProviderToken?) -> APNsRequest {
    var headers: [APNsHeaderField] = []
    if let token { headers.append(APNsHeaderField("authorization", token.authorization)) }
    let expiration = min(wake.expiresAt, clock.now() + Self.maxExpirationSeconds)
    headers += [
      APNsHeaderField("apns-topic", app.topic), APNsHeaderField("apns-push-type", "alert"),
      APNsHeaderField("apns-priority", "10"), APNsHeaderField("apns-expiration", String(max(0, expiration))),
      APNsHeaderField("apns-id", wake.requestID),
    ]
    return APNsRequest(deviceToken: wake.deviceToken, headers: headers, body: app.body)
  }

  private func send(_ wake: APNsWake, token: APNsProviderToken?, deadline: ContinuousClock.Instant) async
    -> (outcome: APNsOutcome, response: APNsResponse?)
  {
    do {
      let response = try await transport.send(request(for: wake, token: token), deadline: deadline)
      return (APNsOutcome.classify(response), response)
    } catch {
      return (.retry(retryAfterSeconds: nil), nil)
    }
  }
}
