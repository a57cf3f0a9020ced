import Bech32
import NostrPushTestSupport
import Testing

@Suite struct CompactNpubTests {
  static let hex = "aa4fc8665f5696e33db7e1a572e3b0f5b3d615837b0f362dcb1c8068b098c7b4"
  static let npub = "npub14f8usejl26twx0dhuxjh9cas7keav9vr0v8nvtwtrjqx3vycc76qqh9nsy"

  @Test(arguments: [hex, hex.uppercased(), npub, npub.uppercased()])
  func showsTheHeadAndTailOfTheCanonicalNpub(_ key: String) {
    #expect(CompactNpub.display(for: key) == "npub14f8\u{2026}9nsy")
    #expect(CompactNpub.canonicalNpub(key) == Self.npub)
  }

  /// Strings that are not a key, including ones that merely parse as hex.
  static let notKeys: [String] = {
    let hex = CompactNpubTests.hex
    let npub = CompactNpubTests.npub
    var texts: [String] = []
    texts.append("")
    texts.append(String(hex.dropLast()))
    texts.append(hex + "0")
    texts.append("+a" + hex.dropFirst(2))
    texts.append("+a+a" + hex.dropFirst(4))
    texts.append(" " + hex.dropFirst())
    texts.append("0x" + hex.dropFirst(2))
    texts.append(String(hex.dropLast(2)) + "g0")
    texts.append(hex + "\n")
    texts.append(String(hex.prefix(32)))
    texts.append("nostr:" + npub)
    texts.append(String(npub.dropLast()) + "x")
    texts.append("Npub14f8usejl26twx0dhuxjh9cas7keav9vr0v8nvtwtrjqx3vycc76qqh9nsy")
    texts.append("nsec1j4c6269y9w0q2er2xjw8sv2ehyrtfxq3jwgdlxj6qfn8z4gjsq5qfvfk99")
    texts.append("note1s4p70596lv50x0zftuses32t6ck8x6wgd4edwacyetfxwns2jtysux7vep")
    texts.append("npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsqaacg5m")
    texts.append("Alice")
    return texts
  }()

  @Test(arguments: notKeys)
  func showsSomeoneForAnythingElse(_ text: String) {
    #expect(CompactNpub.display(for: text) == "Someone")
    #expect(CompactNpub.canonicalNpub(text) == nil)
  }

  @Test func compactsRandomKeysConsistently() throws {
    var random = SplitMix64(seed: 42)
    let digits = Array("0123456789abcdef")
    for _ in 0..<500 {
      let hex = String((0..<64).map { _ in digits[Int(random.next() & 15)] })
      let npub = try NIP19Entity.npub(pubkey: hex).encoded()
      let compact = CompactNpub.display(for: hex)
      #expect(compact == CompactNpub.display(for: npub))
      #expect(compact == String(npub.prefix(8)) + "\u{2026}" + String(npub.suffix(4)))
    }
  }
}
