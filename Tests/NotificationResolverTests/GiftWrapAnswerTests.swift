import NostrEvent
import NostrJSON
import Testing

@testable import NotificationResolver

/// The gift-wrap request's answer is read under its own bounds: a wrap
/// whose content is over NIP-44's largest payload (87 472 characters) is dropped while it is read,
/// before any `Event` is built; one at the bound is kept.
@Suite struct GiftWrapAnswerTests {
  static let key = try! SecretKey(hex: String(repeating: "0", count: 63) + "7")

  static func wrap(contentLength: Int) -> Event {
    try! UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1_700_000_000, kind: 1059,
      tags: [["p", SecretKey.generate().publicKeyHex]], content: String(repeating: "A", count: contentLength)
    ).signed(with: key)
  }

  @Test func dropsAWrapOverTheLargestPayloadWhileReading() throws {
    let atBound = Self.wrap(contentLength: 87_472)
    let over = Self.wrap(contentLength: 87_473)
    let body = Array("[".utf8) + over.jsonBytes() + Array(",".utf8) + atBound.jsonBytes() + Array("]".utf8)
    let events = try RelayClient.verifiedEvents(
      in: body, cap: DirectMessageInbox.responseCap, limits: DirectMessageInbox.readLimits)
    #expect(events.map(\.id) == [atBound.id])
    // The message query's bounds (64 KiB strings) would have dropped both.
    let asMessages = try RelayClient.verifiedEvents(in: body, cap: DirectMessageInbox.responseCap)
    #expect(asMessages.isEmpty)
  }

  @Test func refusesAnAnswerOverTheTwoMebibyteCap() throws {
    let wraps = (0..<25).map { _ in Self.wrap(contentLength: 87_000) }
    var body = Array("[".utf8)
    for (index, wrap) in wraps.enumerated() {
      if index > 0 { body += Array(",".utf8) }
      body += wrap.jsonBytes()
    }
    body += Array("]".utf8)
    #expect(body.count > DirectMessageInbox.responseCap)
    #expect(throws: RelayFailure.self) {
      try RelayClient.verifiedEvents(
        in: body, cap: DirectMessageInbox.responseCap, limits: DirectMessageInbox.readLimits)
    }
  }
}
