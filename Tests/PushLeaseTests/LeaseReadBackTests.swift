import NostrEvent
import PushDescriptor
import Testing

@testable import PushLease

/// The author's side of the validator: an account reads its own lease back (endpoint,
/// subscriptions, generation) with its own key and the push key's pubkey, and nobody else's.
@Suite struct LeaseReadBackTests {
  typealias T = LeaseTestSupport

  @Test func theAuthorOpensItsOwnLeaseAsTheRelayDoes() throws {
    let event = try T.lease(T.active())
    let relaySide = try T.validator().open(event, tenantOrigin: T.origin, now: T.now)
    let authorSide = try LeaseValidator(descriptor: T.demoDescriptor(), author: T.account)
      .open(event, tenantOrigin: T.origin, now: T.now)
    #expect(authorSide == relaySide)
    guard case .active(_, _, let endpoint, _, let subscriptions) = authorSide.state else {
      Issue.record("not active: \(authorSide.state)")
      return
    }
    #expect(endpoint == "grant-1")
    #expect(subscriptions.map(\.filter.pTags) == [[T.me]])
  }

  @Test func anotherAccountCannotOpenIt() throws {
    let event = try T.lease(T.active())
    let stranger = LeaseValidator(descriptor: T.demoDescriptor(), author: SecretKey.generate())
    #expect(T.verdict(event, validator: stranger) == "invalid: invalid encrypted content")
  }

  @Test func aKeyIDTheDescriptorDoesNotListIsRefused() throws {
    let event = try T.lease(
      "", tags: [T.validTags[0], T.validTags[1], ["exec", "gone"]], content: "x")
    let author = LeaseValidator(descriptor: T.demoDescriptor(), author: T.account)
    #expect(T.verdict(event, validator: author) == "invalid: unknown executor key")
  }
}
