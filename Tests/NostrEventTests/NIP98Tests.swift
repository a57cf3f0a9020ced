import Foundation
import NostrJSON
import Testing

@testable import NostrEvent

@Suite struct NIP98Tests {
  static let key = try! SecretKey(hex: "41ad4a9d72aaf80a611fddc7e48ea51d96c0a983654405989a4d8e958e612690")
  static let now: Int64 = 1_700_000_000
  static let url = "https://relay.example.com/api/v1/push?device=abc"
  static let body = Array("{\"token\":\"x\"}".utf8)

  static func header(
    url: String = url, method: String = "POST", body: [UInt8]? = body, now: Int64 = now
  ) throws -> String {
    try NIP98.authorizationHeader(url: url, method: method, body: body, key: key, now: now)
  }

  /// A header carrying an arbitrary signed event (for rules the creator never breaks).
  static func header(kind: Int = NIP98.kind, tags: [[String]]) throws -> String {
    let event = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: now, kind: kind, tags: tags, content: ""
    )
    .signed(with: key)
    return "Nostr " + Data(event.jsonBytes()).base64EncodedString()
  }

  func verify(
    _ header: String?, url: String = url, method: String = "POST", body: [UInt8]? = body, now: Int64 = now
  ) throws(NIP98Error) -> Event {
    try NIP98Verifier().verify(header: header, url: url, method: method, body: body, now: now)
  }

  func code(_ body: () throws(NIP98Error) -> Event) -> NIP98Error.Code? {
    do {
      _ = try body()
      return nil
    } catch {
      return error.code
    }
  }

  @Test func createsTheSpecifiedEvent() throws {
    let header = try Self.header()
    #expect(header.hasPrefix("Nostr "))
    let data = try #require(Data(base64Encoded: String(header.dropFirst(6))))
    let event = try Event(json: [UInt8](data))
    #expect(event.kind == 27235)
    #expect(event.createdAt == Self.now)
    #expect(event.content == "")
    #expect(event.tagValues("u") == [Self.url])
    #expect(event.tagValues("method") == ["POST"])
    #expect(event.tagValues("payload") == [Hex.encode(NostrSHA256.hash(Self.body))])
    let nonce = try #require(event.tagValues("nonce").first)
    #expect(Hex.isLowercaseHex(nonce, length: 32))
    #expect(event.verify() == .valid(.common))
  }

  @Test func omitsThePayloadWithoutABody() throws {
    let header = try Self.header(method: "get", body: nil)
    let event = try verify(header, method: "GET", body: nil)
    #expect(event.tagValues("payload").isEmpty)
    #expect(event.tagValues("method") == ["GET"])
  }

  /// Two headers for the same request in the same second are different events (their ids differ,
  /// through the nonce), so a verifier that remembers ids accepts both. Signatures alone would
  /// differ anyway (BIP-340 signing is randomised), so the ids are compared.
  @Test func makesDistinctHeadersInTheSameSecond() throws {
    func event(_ header: String) throws -> Event {
      let data = try #require(Data(base64Encoded: String(header.dropFirst("Nostr ".count))))
      return try Event(json: [UInt8](data))
    }
    let first = try event(Self.header())
    let second = try event(Self.header())
    #expect(first.createdAt == second.createdAt)
    #expect(first.id != second.id)
    #expect(first.tagValues("nonce") != second.tagValues("nonce"))
  }

  // Rule 1: scheme, base64, parse, verify.
  @Test func acceptsAValidHeader() throws {
    let event = try verify(Self.header())
    #expect(event.pubkey == Self.key.publicKeyHex)
  }

  @Test func refusesAMissingHeader() {
    #expect(code { () throws(NIP98Error) in try verify(nil) } == .missingHeader)
  }

  @Test func refusesAnotherScheme() throws {
    let header = try Self.header().replacingOccurrences(of: "Nostr ", with: "Bearer ")
    #expect(code { () throws(NIP98Error) in try verify(header) } == .scheme)
  }

  @Test func refusesCredentialsThatAreNotAnEvent() {
    #expect(code { () throws(NIP98Error) in try verify("Nostr !!!not-base64") } == .malformed)
    let notEvent = "Nostr " + Data("{\"a\":1}".utf8).base64EncodedString()
    #expect(code { () throws(NIP98Error) in try verify(notEvent) } == .malformed)
  }

  @Test func refusesAnEventThatDoesNotVerify() throws {
    let data = try #require(Data(base64Encoded: String(try Self.header().dropFirst(6))))
    var text = String(decoding: data, as: UTF8.self)
    text = text.replacingOccurrences(of: "\"content\":\"\"", with: "\"content\":\"x\"")
    let header = "Nostr " + Data(text.utf8).base64EncodedString()
    #expect(code { () throws(NIP98Error) in try verify(header) } == .invalidEvent)
  }

  // Rule 2: kind.
  @Test func refusesAnotherKind() throws {
    let header = try Self.header(kind: 1, tags: [["u", Self.url], ["method", "POST"]])
    #expect(code { () throws(NIP98Error) in try verify(header, body: nil) } == .wrongKind)
    let right = try Self.header(tags: [["u", Self.url], ["method", "POST"]])
    #expect(code { () throws(NIP98Error) in try verify(right, body: nil) } == nil)
  }

  // Rule 3: time window.
  @Test func acceptsSixtySecondsEitherWay() throws {
    let header = try Self.header()
    #expect(code { () throws(NIP98Error) in try verify(header, now: Self.now + 60) } == nil)
    #expect(code { () throws(NIP98Error) in try verify(header, now: Self.now - 60) } == nil)
  }

  @Test func refusesAnExpiredEvent() throws {
    let header = try Self.header()
    #expect(code { () throws(NIP98Error) in try verify(header, now: Self.now + 61) } == .expired)
    #expect(code { () throws(NIP98Error) in try verify(header, now: Self.now - 61) } == .expired)
  }

  // Rule 4: URL.
  @Test func acceptsTheTolerableURLDifferences() throws {
    let header = try Self.header(url: "HTTPS://Relay.Example.COM:443/api/v1/push/?device=abc")
    #expect(code { () throws(NIP98Error) in try verify(header) } == nil)
    #expect(NIP98URL.normalized("http://[::1]:80/") == "http://[::1]")
    #expect(NIP98URL.normalized("http://127.0.0.1:8080/a/") == "http://127.0.0.1:8080/a")
    // IPv6 as RelayOrigin canonicalises it, so a `u` signed for either spelling of one relay matches.
    #expect(NIP98URL.normalized("http://[0:0:0:0:0:0:0:1]:80/query") == "http://[::1]/query")
    #expect(
      NIP98URL.normalized("HTTP://[2001:DB8::0:1]:7000/query?x=A")
        == (try RelayOrigin("ws://[2001:db8::1]:7000")).url(path: "/query?x=A"))
  }

  @Test func refusesAnotherURL() throws {
    let query = try Self.header(url: "https://relay.example.com/api/v1/push?device=ABC")
    #expect(code { () throws(NIP98Error) in try verify(query) } == .urlMismatch)
    let path = try Self.header(url: "https://relay.example.com/API/v1/push?device=abc")
    #expect(code { () throws(NIP98Error) in try verify(path) } == .urlMismatch)
    let port = try Self.header(url: "https://relay.example.com:8443/api/v1/push?device=abc")
    #expect(code { () throws(NIP98Error) in try verify(port) } == .urlMismatch)
    let none = try Self.header(tags: [["method", "POST"]])
    #expect(code { () throws(NIP98Error) in try verify(none, body: nil) } == .urlMismatch)
  }

  // Rule 5: method.
  @Test func acceptsTheMethodInAnyCase() throws {
    let header = try Self.header()
    #expect(code { () throws(NIP98Error) in try verify(header, method: "post") } == nil)
  }

  @Test func refusesAnotherMethod() throws {
    let header = try Self.header()
    #expect(code { () throws(NIP98Error) in try verify(header, method: "PUT") } == .methodMismatch)
  }

  // Rule 6: payload.
  @Test func acceptsTheMatchingPayload() throws {
    let event = try verify(Self.header(), body: Self.body)
    #expect(event.tagValues("payload") == [Hex.encode(NostrSHA256.hash(Self.body))])
  }

  @Test func refusesAMissingPayload() throws {
    let header = try Self.header(body: nil)
    #expect(code { () throws(NIP98Error) in try verify(header, body: Self.body) } == .payloadMissing)
  }

  @Test func refusesAnotherPayload() throws {
    let header = try Self.header()
    #expect(
      code { () throws(NIP98Error) in try verify(header, body: Self.body + [0x20]) } == .payloadMismatch)
  }

  // Rule 7: replay.
  @Test func refusesAReplayedHeader() throws {
    let verifier = NIP98Verifier()
    let header = try Self.header()
    _ = try verifier.verify(header: header, url: Self.url, method: "POST", body: Self.body, now: Self.now)
    let error = #expect(throws: NIP98Error.self) {
      try verifier.verify(header: header, url: Self.url, method: "POST", body: Self.body, now: Self.now + 1)
    }
    #expect(error?.code == .replayed)
    let fresh = try Self.header()
    #expect(throws: Never.self) {
      try verifier.verify(header: fresh, url: Self.url, method: "POST", body: Self.body, now: Self.now + 1)
    }
  }

  @Test func keepsAnIDUntilItsExpiryAndRefusesNewOnesWhenFullOfLiveIDs() {
    let (a, b, c) = (Self.hexID(1), Self.hexID(2), Self.hexID(3))
    let window = ReplaySet(capacity: 10)
    #expect(window.insert(a, expiresAt: 60, now: 0) == nil)
    #expect(window.insert(a, expiresAt: 60, now: 60) == .replayed)
    #expect(window.insert(a, expiresAt: 121, now: 61) == nil)
    // Full of live ids: a new one is refused and no live one is dropped.
    let full = ReplaySet(capacity: 2)
    #expect(full.insert(a, expiresAt: 100, now: 0) == nil)
    #expect(full.insert(b, expiresAt: 50, now: 1) == nil)
    #expect(full.insert(c, expiresAt: 100, now: 2) == .full)
    #expect(full.count == 2)
    #expect(full.insert(a, expiresAt: 100, now: 3) == .replayed)
    #expect(full.insert(b, expiresAt: 100, now: 50) == .replayed)
    // b's event left the window first, whatever the order the ids came in: c takes its place.
    #expect(full.insert(c, expiresAt: 110, now: 51) == nil)
    #expect(full.insert(a, expiresAt: 100, now: 51) == .replayed)
  }

  @Test func keysIDsByTheirBytes() {
    let replays = ReplaySet(capacity: 10)
    let id = Self.hexID(0xABCDEF)
    #expect(replays.insert(id, expiresAt: 120, now: 0) == nil)
    #expect(replays.insert(id.uppercased(), expiresAt: 120, now: 1) == .replayed)
    #expect(replays.insert(Self.hexID(0xABCDEE), expiresAt: 120, now: 1) == nil)
    #expect(replays.insert("not hex", expiresAt: 120, now: 1) == .malformed)
    #expect(replays.insert(String(id.dropLast()), expiresAt: 120, now: 1) == .malformed)
    #expect(replays.insert(id + "0", expiresAt: 120, now: 1) == .malformed)
    #expect(replays.count == 2)
  }

  @Test func staysBoundedAsIDsExpire() {
    let replays = ReplaySet(capacity: 5_000)
    for index in 0..<20_000 {
      let now = Int64(index / 100)
      #expect(replays.insert(Self.hexID(UInt64(index)), expiresAt: now + 10, now: now) == nil)
    }
    // 100 ids a second kept 10 seconds: ids from the last 11 seconds remain.
    #expect(replays.count <= 1_100)
    #expect(replays.insert(Self.hexID(19_999), expiresAt: 209, now: 199) == .replayed)
    #expect(replays.insert(Self.hexID(0), expiresAt: 209, now: 199) == nil)
  }

  /// A 64-digit hex id whose last 16 digits are `value`.
  private static func hexID(_ value: UInt64) -> String {
    let tail = String(value, radix: 16)
    return String(repeating: "0", count: 64 - tail.count) + tail
  }
}
