/// A gateway route whose request App Attest binds: the installation's attestation, or an
/// assertion on a route that changes an installation or a delegation (`AppAttestTranscript`).
///
/// Decision (the spec names the installation's transcript `nostr-push.installation.v1` and the
/// others `nostr-push.<route name>.v1`): a route's name is its path after `/v1/` with the
/// resource in the singular and `/` as `.` — `installation`, `installation.endpoint`,
/// `installation.revoke`, `delegation`, `delegation.revoke`.
public enum AppAttestRoute: String, Sendable, CaseIterable {
  /// `POST /v1/installations`, attested.
  case installation = "installation"
  /// `POST /v1/installations/endpoint`, asserted.
  case installationEndpoint = "installation.endpoint"
  /// `POST /v1/installations/revoke`, asserted.
  case installationRevoke = "installation.revoke"
  /// `POST /v1/delegations`, asserted.
  case delegation = "delegation"
  /// `POST /v1/delegations/revoke`, asserted.
  case delegationRevoke = "delegation.revoke"

  /// The route's path, appended to the gateway's public URL to make the transcript's audience.
  public var path: String {
    switch self {
    case .installation: return "/v1/installations"
    case .installationEndpoint: return "/v1/installations/endpoint"
    case .installationRevoke: return "/v1/installations/revoke"
    case .delegation: return "/v1/delegations"
    case .delegationRevoke: return "/v1/delegations/revoke"
    }
  }

  /// The transcript's first line, without its newline: `nostr-push.<name>.v1`.
  public var domain: String { "nostr-push.\(rawValue).v1" }

  /// Whether the route carries an attestation (the installation) rather than an assertion.
  public var isAttested: Bool { self == .installation }
}
