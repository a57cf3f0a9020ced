import Foundation
import NostrJSON
import PushDescriptor

extension BenchmarkRegistry {
  /// The PushDescriptor row of `Docs/Performance.md`: an 8 KiB NIP-11 document with a push descriptor,
  /// read and validated, against `JSONSerialization.jsonObject` of the same bytes.
  static func pushDescriptorBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let document = PushDescriptorDocument.bytes(atLeast: 8 * 1024)
    let data = Data(document)
    _ = try RelayDocument(bytes: document)
    let rounds = quick ? 500 : 5_000
    let row = Benchmark(
      module: "PushDescriptor", name: "8 KiB NIP-11 document with push descriptor, parse + validate",
      unit: "µs/doc", baselineName: "JSONSerialization.jsonObject of the same bytes",
      target: "≤ 3 × baseline",
      baseline: {
        var sink = 0
        let seconds = try Stopwatch.seconds {
          for _ in 0..<rounds {
            sink &+= (try JSONSerialization.jsonObject(with: data) as? NSDictionary)?.count ?? 0
          }
        }
        precondition(sink > 0, "the document must parse")
        return seconds / Double(rounds) * 1e6
      },
      measured: {
        var sink = 0
        let seconds = try Stopwatch.seconds {
          for _ in 0..<rounds { sink &+= try RelayDocument(bytes: document).push.keys.count }
        }
        precondition(sink > 0, "the document must validate")
        return seconds / Double(rounds) * 1e6
      },
      passes: { summary in summary.ratio.map { $0 <= 3 } })
    return ([row], ["NIP-11 document: \(document.count) B, \(rounds) parses per repetition"])
  }
}

/// A realistic NIP-11 document with a valid push descriptor, padded with unrelated metadata to a
/// target size, built the same way every run.
enum PushDescriptorDocument {
  static func bytes(atLeast size: Int) -> [UInt8] {
    var object = JSONObject([
      "name": .string("push.example"),
      "description": .string(String(repeating: "A relay with NIP-PL push for chat communities. ", count: 8)),
      "pubkey": .string(String(repeating: "4f", count: 32)),
      "self": .string(String(repeating: "7e", count: 32)),
      "contact": .string("mailto:admin@push.example"),
      "supported_nips": .array([1, 9, 11, 29, 40, 42, 70, 77, 98].map { .integer($0) }),
      "supported_extensions": .array([.string("nip-pl")]),
      "software": .string("https://push.example/software"),
      "version": .string("1.4.2"),
      "limitation": .object(
        JSONObject([
          "max_message_length": .integer(131_072), "max_subscriptions": .integer(20),
          "auth_required": .bool(false), "payment_required": .bool(false),
        ])),
      "push": push,
    ])
    var artifacts: [JSONValue] = []
    var bytes = JSONWriter.bytes(.object(object))
    while bytes.count < size {
      let digest = String(repeating: String(artifacts.count % 10), count: 64)
      artifacts.append(
        .object(
          JSONObject([
            "url": .string("https://push.example/artifacts/build-\(artifacts.count).tar.gz"),
            "sha256": .string(digest), "size": .integer(1_234_567 + Int64(artifacts.count)),
          ])))
      object["artifacts"] = .array(artifacts)
      bytes = JSONWriter.bytes(.object(object))
    }
    return bytes
  }

  private static var push: JSONValue {
    PushDescriptor(
      origin: "wss://push.example",
      keys: [
        PushKey(id: "2026-11", pubkey: String(repeating: "c5", count: 32), retiring: true),
        PushKey(id: "2026-12", pubkey: String(repeating: "5b", count: 32), current: true),
      ],
      appProfiles: [
        PushAppProfile(id: "com.example.chat", transport: "apns"),
        PushAppProfile(id: "com.example.chat.android", transport: "fcm"),
      ],
      pushKinds: [9, 40002, 45001, 45003, 1111], urgentKinds: [45003],
      classSupport: PushClassSupport(
        apns: [.silent, .default, .timeSensitive],
        otherTransports: JSONObject(["fcm": .array([.string("normal"), .string("high")])])),
      limitation: PushLimitation(
        maxLeaseTTL: 2_592_000, maxLeasesPerPubkey: 8, maxSubscriptionsPerLease: 4, maxKinds: 16,
        maxAuthors: 256, maxH: 64, maxTagValues: 64, maxIgnore: 128, maxContentLen: 8192,
        maxPlaintextLen: 4096, maxEndpointLen: 512, maxStringLen: 256)
    ).jsonValue
  }
}
