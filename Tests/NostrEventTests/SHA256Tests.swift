import Foundation
import NostrPushTestSupport
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
    #expect(Hex.encode(NostrSHA256.hash(Array(input.utf8))) == digest)
  }

  @Test func hashesAMillionAs() {
    let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(
      Hex.encode(NostrSHA256.hash(input))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
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
      #expect(Hex.encode(NostrSHA256.hash(input)) == digest, "length \(count)")
    }
  }

  /// The engines this CPU runs: always Swift, and the SHA instructions where present.
  static let engines = SHA256State.Engine.allCases.filter {
    $0 == .swift || SHA256State.Engine.hardwareAvailable
  }

  static func portableDigest(_ bytes: [UInt8], engine: SHA256State.Engine) -> String {
    var digest = [UInt8](repeating: 0, count: NostrSHA256.digestCount)
    bytes.withUnsafeBytes { input in
      digest.withUnsafeMutableBytes { NostrSHA256.portableHash(buffer: input, into: $0, engine: engine) }
    }
    return Hex.encode(digest)
  }

  @Test(arguments: engines)
  func everyEngineHashesTheFIPSExamples(_ engine: SHA256State.Engine) {
    for (input, digest) in Self.cases {
      #expect(
        Self.portableDigest(Array(input.utf8), engine: engine) == digest, "\(engine) \(input.prefix(8))")
    }
    let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(
      Self.portableDigest(million, engine: engine)
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func theSHAInstructionsAndSwiftAgreeOnEveryLengthAndAlignment() throws {
    try #require(SHA256State.Engine.hardwareAvailable, "this CPU has no SHA instructions")
    var random = SplitMix64(seed: 0x5A5A_2026)
    let pool = (0..<1_300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    for count in 0...1_200 {
      let offset = count % 7  // unaligned starts
      let input = Array(pool[offset..<(offset + count)])
      let swift = Self.portableDigest(input, engine: .swift)
      let hardware = Self.portableDigest(input, engine: .hardware)
      #expect(swift == hardware, "length \(count)")
      if swift != hardware { break }
    }
  }

  @Test func detectsTheSHAInstructionsTheKernelReports() throws {
    // Linux lists the CPU's features in /proc/cpuinfo; SHA-NI shows as `sha_ni` on x86-64.
    #if os(Linux) && arch(x86_64)
    let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
    let flags = info.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
    let words = Set(flags.split(separator: " ").map(String.init))
    let expected = words.contains("sha_ni") && words.contains("ssse3") && words.contains("sse4_1")
    #expect(SHA256State.Engine.hardwareAvailable == expected)
    #expect(SHA256State.Engine.preferred == (expected ? .hardware : .swift))
    #expect(NostrSHA256.implementationName == (expected ? "SHA-NI" : "Swift"))
    #elseif !arch(x86_64)
    #expect(SHA256State.Engine.hardwareAvailable == false)
    #endif
  }
}
