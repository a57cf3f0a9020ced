import NostrEvent
import NostrJSON
import PushRelayServer
import Testing

/// The production reading of a client's frames and of an event's admission, which the service's
/// sessions and the fixture relay both answer with.
@Suite struct ClientMessageTests {
  static func read(_ text: String) -> Result<ClientMessage, ClientMessage.Refusal> {
    ClientMessage.read(Array(text.utf8))
  }

  static func refusal(_ text: String) -> String? {
    if case .failure(let refusal) = read(text) { return refusal.message }
    return nil
  }

  @Test func readsTheFourMessages() throws {
    #expect(try Self.read(#"["CLOSE","s"]"#).get() == .close(subscription: "s"))
    guard case .request(let subscription, let filters) = try Self.read(#"["REQ","s",{"kinds":[1]},{}]"#).get()
    else {
      Issue.record("not a REQ")
      return
    }
    #expect(subscription == "s")
    #expect(filters.count == 2)
    guard case .event(let value) = try Self.read(#"["EVENT",{"id":"x"}]"#).get() else {
      Issue.record("not an EVENT")
      return
    }
    #expect(value.objectValue?["id"]?.stringValue == "x")
    guard case .auth = try Self.read(#"["AUTH",{}]"#).get() else {
      Issue.record("not an AUTH")
      return
    }
  }

  @Test func refusesWhatIsNoMessageWithTheNoticeText() {
    #expect(Self.refusal("{}") == "invalid: not a JSON array with a message type")
    #expect(Self.refusal("[1]") == "invalid: not a JSON array with a message type")
    #expect(Self.refusal(#"["PING"]"#) == "invalid: unknown message type PING")
    #expect(Self.refusal(#"["EVENT",[]]"#) == "invalid: EVENT takes one event object")
    #expect(Self.refusal(#"["AUTH"]"#) == "invalid: AUTH takes one event object")
    #expect(Self.refusal(#"["CLOSE",1]"#) == "invalid: CLOSE takes one subscription id")
    #expect(Self.refusal(#"["REQ",""]"#) == "invalid: REQ needs a subscription id of 1 to 64 characters")
    let long = String(repeating: "s", count: ClientMessage.maxSubscriptionIDLength + 1)
    #expect(Self.refusal(#"["REQ",""# + long + #"",{}]"#) != nil)
  }

  @Test func refusesFiltersWithTheClosedText() throws {
    let none = ClientMessage.filters([], maxFilters: 2)
    #expect(none.failureMessage == "invalid: REQ takes 1 to 2 filters")
    let three = ClientMessage.filters(
      [.object(JSONObject([:])), .object(JSONObject([:])), .object(JSONObject([:]))], maxFilters: 2)
    #expect(three.failureMessage == "invalid: REQ takes 1 to 2 filters")
    let bad = ClientMessage.filters([.object(JSONObject([:])), .string("x")], maxFilters: 2)
    #expect(bad.failureMessage?.hasPrefix("invalid: filter [1] ") == true)
    #expect(try ClientMessage.filters([.object(JSONObject([:]))], maxFilters: 2).get().count == 1)
  }

  @Test func admitsAnEventOnlyWhenWithinSizeWellFormedVerifiedAndTimely() throws {
    let event = try UnsignedEvent(
      pubkey: Keys.alice.publicKeyHex, createdAt: 10_000, kind: 1, tags: [], content: "x"
    )
    .signed(with: Keys.alice)
    let value = event.jsonValue
    #expect(try EventAdmission.parse(value, size: 100, maxBytes: 100).get().id == event.id)
    #expect(
      EventAdmission.parse(value, size: 101, maxBytes: 100).failureMessage == "invalid: event over 100 bytes")
    #expect(
      EventAdmission.parse(.object(JSONObject([:])), size: 2, maxBytes: 100).failureMessage?.hasPrefix(
        "invalid: malformed event: ") == true)
    #expect(try EventAdmission.verify(event).get().event.id == event.id)
    #expect(EventAdmission.isTimely(event, now: 10_900, window: 900))
    #expect(!EventAdmission.isTimely(event, now: 10_901, window: 900))
    #expect(!EventAdmission.isTimely(event, now: 9_099, window: 900))
  }
}

extension Result where Failure == ClientMessage.Refusal {
  /// The refusal's text, nil on success.
  fileprivate var failureMessage: String? {
    if case .failure(let refusal) = self { return refusal.message }
    return nil
  }
}
