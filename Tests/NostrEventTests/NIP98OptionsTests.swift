import Foundation
import Testing

@testable import NostrEvent

/// The `NIP98Verifier` options: asymmetric window, exact URL and method,
/// required payload and nonce.
@Suite struct NIP98OptionsTests {
  static let url = "http://127.0.0.1:8080/v1/deliveries/apns"
  static let body = Array("{\"v\":1}".utf8)

  static func strict() -> NIP98Verifier {
    NIP98Verifier(
      windowBack: 60, windowAhead: 30, urlMatch: .exact, methodMatch: .exact, requirePayload: true,
      requireNonce: true)
  }

  static func header(createdAt: Int64 = NIP98Tests.now, tags: [[String]]? = nil) throws -> String {
    let event = try UnsignedEvent(
      pubkey: NIP98Tests.key.publicKeyHex, createdAt: createdAt, kind: NIP98.kind,
      tags: tags ?? [
        ["u", url], ["method", "POST"], ["payload", Hex.encode(NostrSHA256.hash(body))],
        ["nonce", "00112233445566778899aabbccddeeff"],
      ], content: ""
    )
    .signed(with: NIP98Tests.key)
    return "Nostr " + Data(event.jsonBytes()).base64EncodedString()
  }

  static func code(_ verifier: NIP98Verifier, _ header: String, url: String = url, method: String = "POST")
    -> NIP98Error.Code?
  {
    do {
      _ = try verifier.verify(header: header, url: url, method: method, body: body, now: NIP98Tests.now)
      return nil
    } catch {
      return error.code
    }
  }

  @Test(arguments: [(-60, true), (-61, false), (30, true), (31, false)])
  func honoursTheAsymmetricWindow(offset: Int64, accepted: Bool) throws {
    let header = try Self.header(createdAt: NIP98Tests.now + offset)
    #expect(Self.code(Self.strict(), header) == (accepted ? nil : .expired))
  }

  @Test func comparesTheURLByteForByteWhenExact() throws {
    let upper = try Self.header(tags: [
      ["u", "HTTP://127.0.0.1:8080/v1/deliveries/apns/"], ["method", "POST"],
      ["payload", Hex.encode(NostrSHA256.hash(Self.body))], ["nonce", "00"],
    ])
    #expect(Self.code(Self.strict(), upper) == .urlMismatch)
    #expect(Self.code(NIP98Verifier(), upper) == nil)
  }

  @Test func comparesTheMethodByteForByteWhenExact() throws {
    let lower = try Self.header(tags: [
      ["u", Self.url], ["method", "post"], ["payload", Hex.encode(NostrSHA256.hash(Self.body))],
      ["nonce", "00"],
    ])
    #expect(Self.code(Self.strict(), lower) == .methodMismatch)
    #expect(Self.code(NIP98Verifier(), lower) == nil)
  }

  @Test func requiresTheNonceWhenAsked() throws {
    let bare = try Self.header(tags: [
      ["u", Self.url], ["method", "POST"], ["payload", Hex.encode(NostrSHA256.hash(Self.body))],
    ])
    #expect(Self.code(Self.strict(), bare) == .nonceMissing)
    #expect(Self.code(NIP98Verifier(), bare) == nil)
  }

  @Test func requiresThePayloadWhenAskedEvenWithoutABody() throws {
    let bare = try Self.header(tags: [["u", Self.url], ["method", "GET"], ["nonce", "00"]])
    let verifier = NIP98Verifier(windowBack: 60, windowAhead: 60, requirePayload: true)
    #expect(throws: NIP98Error(code: .payloadMissing, message: "")) {
      try verifier.verify(header: bare, url: Self.url, method: "GET", body: nil, now: NIP98Tests.now)
    }
    #expect(
      (try? NIP98Verifier().verify(header: bare, url: Self.url, method: "GET", body: nil, now: NIP98Tests.now))
        != nil)
  }

  @Test func refusesAReplayAfterTheOtherRules() throws {
    let verifier = Self.strict()
    let header = try Self.header()
    #expect(Self.code(verifier, header) == nil)
    #expect(Self.code(verifier, header) == .replayed)
  }
}
