import PushLease
import Testing

/// A relay's `OK` to a published lease, read as a typed outcome (`README.md`).
@Suite struct LeasePublishOutcomeTests {
  @Test(arguments: [
    (true, "", LeasePublishOutcome.accepted),
    (true, "duplicate: already have this event", .duplicate),
  ])
  func readsAnAcceptance(accepted: Bool, message: String, expected: LeasePublishOutcome) {
    #expect(LeasePublishOutcome(accepted: accepted, message: message) == expected)
  }

  @Test(arguments: [
    ("invalid: stale generation", LeaseRefusal.Code.staleGeneration),
    ("invalid: stale replacement", .staleReplacement),
    ("invalid: endpoint already leased", .endpointAlreadyLeased),
    ("invalid: lease quota exceeded", .leaseQuotaExceeded),
    ("invalid: source event collision", .sourceEventCollision),
    ("invalid: lease constraint violation", .leaseConstraintViolation),
    ("invalid: lease ttl too long", .invalidLease),
    ("auth-required: sign in", .authRequired),
    ("rate-limited: slow down", .rateLimited),
    ("blocked: no", .blocked),
    ("restricted: members only", .restricted),
    ("error: internal server error", .relayError),
    ("something else", .unknown),
  ])
  func readsARefusalsCode(message: String, code: LeaseRefusal.Code) {
    guard case .refused(let refusal) = LeasePublishOutcome(accepted: false, message: message) else {
      Issue.record("not refused")
      return
    }
    #expect(refusal.code == code)
    #expect(refusal.message == message)
  }
}
