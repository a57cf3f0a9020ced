import NostrEvent
import NotificationResolver
import Testing

@Suite struct ThreadIdentifierTests {
  static let channel = "3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9c"
  static let account = String(repeating: "ab", count: 32)

  @Test func derivesStableIdentifiersPerAccountRelayAndChannel() throws {
    let relay = try RelayOrigin("wss://relay.example")
    let a = ThreadIdentifier.make(account: Self.account, relay: relay, channelID: Self.channel)
    let sameRelay = try RelayOrigin("WSS://Relay.Example:443/")
    #expect(a == ThreadIdentifier.make(account: Self.account, relay: sameRelay, channelID: Self.channel))
    let otherRelay = try RelayOrigin("wss://other.example")
    #expect(a != ThreadIdentifier.make(account: Self.account, relay: otherRelay, channelID: Self.channel))
    #expect(a != ThreadIdentifier.make(account: Self.account, relay: relay, channelID: nil))
    let otherAccount = String(repeating: "cd", count: 32)
    #expect(a != ThreadIdentifier.make(account: otherAccount, relay: relay, channelID: Self.channel))
  }

  @Test func revealsNoRawID() throws {
    let relay = try RelayOrigin("wss://relay.example")
    let identifier = ThreadIdentifier.make(account: Self.account, relay: relay, channelID: Self.channel)
    #expect(Hex.isLowercaseHex(identifier, length: 64))
    #expect(!identifier.contains(Self.account.prefix(16)) && !identifier.contains("3f2a9c1e"))
  }
}
