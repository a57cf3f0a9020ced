import Foundation
import NostrEvent
import Testing

/// `Docs/Robustness.md`: a flood of fresh headers cannot push a captured header out of the replay
/// set; an id leaves only when its `created_at` leaves the window.
@Suite struct NIP98ReplayFloodTests {
  static let url = "http://127.0.0.1:7447/query"
  static let body = Array(##"[{"kinds":[1059],"#p":["aa"]}]"##.utf8)
  static let now: Int64 = 1_767_226_200

  @Test func aFloodOfFreshHeadersDoesNotReopenACapturedOne() throws {
    let verifier = NIP98Verifier()
    let victim = SecretKey.generate()
    let captured = try NIP98.authorizationHeader(
      url: Self.url, method: "POST", body: Self.body, key: victim, now: Self.now)
    _ = try verifier.verify(header: captured, url: Self.url, method: "POST", body: Self.body, now: Self.now)
    // 10 250 fresh headers from one key in the next three seconds: more than the set holds.
    let attacker = SecretKey.generate()
    var accepted = 0
    var unavailable = 0
    for index in 0..<10_250 {
      let at = Self.now + Int64(index / 4_000)
      let header = try NIP98.authorizationHeader(
        url: Self.url, method: "POST", body: Self.body, key: attacker, now: at)
      do {
        _ = try verifier.verify(header: header, url: Self.url, method: "POST", body: Self.body, now: at)
        accepted += 1
      } catch {
        if error.code == .unavailable { unavailable += 1 }
      }
    }
    let replay = #expect(throws: NIP98Error.self) {
      try verifier.verify(header: captured, url: Self.url, method: "POST", body: Self.body, now: Self.now + 3)
    }
    #expect(replay?.code == .replayed)
    #expect(accepted == 9_999)
    #expect(unavailable == 251)
    // Once the victim's created_at leaves the window the set has room again, and the replay is
    // refused as expired, not accepted.
    let later = Self.now + 61
    let expired = #expect(throws: NIP98Error.self) {
      try verifier.verify(header: captured, url: Self.url, method: "POST", body: Self.body, now: later)
    }
    #expect(expired?.code == .expired)
    let fresh = try NIP98.authorizationHeader(
      url: Self.url, method: "POST", body: Self.body, key: attacker, now: later)
    #expect(throws: Never.self) {
      try verifier.verify(header: fresh, url: Self.url, method: "POST", body: Self.body, now: later)
    }
  }
}
