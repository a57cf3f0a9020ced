import NostrEvent
import Testing

@Suite struct NostrIDTests {
  static let key = "4e8d2c1f3a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d"

  @Test func acceptsOnlyTheCanonicalFormStrictly() throws {
    let id = try #require(NostrID(Self.key))
    #expect(id.hex == Self.key)
    #expect(id.bytes.count == 32)
    #expect(id.bytes.first == 0x4E)
    #expect(id.bytes.last == 0x1D)
    #expect(NostrID(Self.key.uppercased()) == nil)
    #expect(NostrID(String(Self.key.dropLast())) == nil)
    #expect(NostrID(Self.key + "0") == nil)
    #expect(NostrID(String(Self.key.dropLast()) + "g") == nil)
    #expect(NostrID("") == nil)
  }

  @Test func lowerCasesAMixedCaseKeyWhenLenient() throws {
    let id = try #require(NostrID(lenient: Self.key.uppercased()))
    #expect(id == NostrID(Self.key))
    #expect(NostrID(lenient: "npub1" + String(repeating: "q", count: 59)) == nil)
    #expect(NostrID(lenient: String(Self.key.dropLast()) + "G") == nil)
    // 64 characters, but a multi-byte scalar: not 64 bytes of hex.
    #expect(NostrID(lenient: String(Self.key.dropLast()) + "é") == nil)
  }

  @Test func ordersByTheBytes() throws {
    let low = try #require(NostrID(String(repeating: "0", count: 63) + "1"))
    let high = try #require(NostrID("f" + String(repeating: "0", count: 63)))
    #expect(low < high)
    #expect([high, low].sorted() == [low, high])
  }
}
