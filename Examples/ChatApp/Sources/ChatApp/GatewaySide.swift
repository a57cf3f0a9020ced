import AppAttest
import Foundation
import NostrEvent
import NostrPushCore
import PushRegistration

/// The app's push gateway, through `GatewayRegistrar`: register the device token once, move it
/// when APNs hands the app a new one, and delegate a grant to each relay's push key — the opaque
/// `g1.` endpoint the lease carries. Every request is signed with NIP-98 by the account key, the
/// key that authors the lease. A gateway whose app requires App Attest also gets an attestation with
/// the registration and an assertion with every later request, from `appAttest`: on a device
/// `DeviceCheckAppAttestProvider` (module `NotificationService`), in tests a synthetic one.
public struct ChatGatewaySide: Sendable {
  /// A gateway answer the app cannot go on from (the answer as the registrar classified it).
  public struct Refused: Error, CustomStringConvertible {
    /// The route, e.g. `register`.
    public let route: String
    /// The answer.
    public let answer: String
    /// `route: answer`.
    public var description: String { "\(route): \(answer)" }
  }

  /// The app profile the gateway knows this app by.
  public let appProfile: String
  private let registrar: GatewayRegistrar
  private let now: @Sendable () -> Int64

  /// The gateway at `baseURL` (its `public_url`), signing as `account`, timed by `now`, attesting
  /// through `appAttest` when the gateway requires App Attest.
  public init(
    baseURL: String, appProfile: String, account: SecretKey, now: @escaping @Sendable () -> Int64,
    appAttest: (any AppAttestProvider)? = nil
  ) throws {
    self.appProfile = appProfile
    self.now = now
    registrar = try GatewayRegistrar(
      baseURL: baseURL, key: account, clock: UnixClock(milliseconds: { now() * 1000 }), appAttest: appAttest)
  }

  /// Registers `deviceToken` for 30 days (the same token again: the live installation back).
  public func register(deviceToken: String) async throws -> GatewayInstallation {
    let answer = try await registrar.register(
      appProfile: appProfile, deviceToken: deviceToken, expiresAt: now() + 30 * 86_400,
      deadline: .now + .seconds(10))
    switch answer {
    case .created(let installation), .done(let installation): return installation
    default: throw Refused(route: "register", answer: "\(answer)")
    }
  }

  /// APNs gave the app a new token: the installation moves to it; grants of the old epoch stop
  /// working, so every relay needs a new one (``grant(installation:relayPubkey:generation:)``).
  public func rotate(installation: GatewayInstallation, deviceToken: String) async throws -> Int64 {
    let answer = try await registrar.rotate(
      installationHandle: installation.handle, deviceToken: deviceToken, deadline: .now + .seconds(10))
    guard case .done(let rotation) = answer else { throw Refused(route: "rotate", answer: "\(answer)") }
    return rotation.endpointEpoch
  }

  /// A grant for the relay whose push key is `relayPubkey`, for 7 days, at `generation` — the
  /// generation of the lease that will carry it, so the gateway's generation rises with the
  /// lease's.
  public func grant(installation: GatewayInstallation, relayPubkey: String, generation: Int64) async throws
    -> ChatAppSide.Grant
  {
    let answer = try await registrar.delegate(
      installationHandle: installation.handle, relayPubkey: relayPubkey, generation: generation,
      expiresAt: min(now() + 7 * 86_400, installation.expiresAt), deadline: .now + .seconds(10))
    guard case .created(let delegation) = answer else {
      throw Refused(route: "delegate", answer: "\(answer)")
    }
    return ChatAppSide.Grant(grant: delegation.endpointGrant, expiresAt: delegation.expiresAt)
  }

  /// Sign-out: the installation and every grant of it stop working.
  public func revoke(installation: GatewayInstallation) async throws {
    let answer = try await registrar.revoke(
      installationHandle: installation.handle, deadline: .now + .seconds(10))
    guard case .done = answer else { throw Refused(route: "revoke", answer: "\(answer)") }
  }
}
