import Testing

@testable import NostrEvent

@Suite struct SHA256Tests {
  static let cases: [(input: String, digest: String)] = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ]

  @Test(arguments: cases.indices)
  func hashesTheFIPSExamples(_ index: Int) {
    let (input, digest) = Self.cases[index]
    #expect(Hex.encode(SHA256.hash(Array(input.utf8))) == digest)
  }

  @Test func hashesAMillionAs() {
    let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(
      Hex.encode(SHA256.hash(input)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func hashesEveryLengthAroundTheBlockBoundary() {
    // 55, 56 and 64 bytes exercise the one- and two-block padding paths.
    let expected: [Int: String] = [
      55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
      56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
      64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
    ]
    for (count, digest) in expected {
      let input = [UInt8](repeating: UInt8(ascii: "a"), count: count)
      #expect(Hex.encode(SHA256.hash(input)) == digest, "length \(count)")
    }
  }
}
