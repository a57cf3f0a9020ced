import PushRelayServer
import Testing

/// NIP-11's `Accept` rule, shared by the service and the fixture relay.
@Suite struct InformationRequestTests {
  @Test(arguments: [
    "application/nostr+json", "text/html, Application/Nostr+JSON; q=0.9", " application/nostr+json ;v=1",
  ])
  func acceptsTheMediaTypeAmongOthers(accept: String) {
    #expect(InformationRequest.accepts(accept))
  }

  @Test(arguments: ["", "application/json", "application/nostr+jsonx", "text/application/nostr+json"])
  func refusesAnythingElse(accept: String) {
    #expect(!InformationRequest.accepts(accept))
  }

  @Test func refusesNoHeader() {
    #expect(!InformationRequest.accepts(nil))
  }
}
