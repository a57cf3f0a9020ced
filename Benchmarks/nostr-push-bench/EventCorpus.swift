import Foundation
import NostrEvent
import NostrPushTestSupport

/// A seeded corpus of realistic signed events for the benchmarks.
///
/// Each event's compact JSON is between `minimumBytes` and `maximumBytes`, sizes drawn
/// log-uniformly (many short notes, a tail of long ones); content mixes words with the escapes
/// real notes carry (newlines, quotes, backslashes), emoji, non-Latin text and URLs; tags are
/// `e`/`p` references, hashtags and the occasional client tag. Signed with real keys.
struct EventCorpus {
  /// The smallest event aimed for (an event with empty content is already ~330 bytes).
  static let minimumBytes = 200
  /// The largest event aimed for.
  static let maximumBytes = 4096

  let events: [Event]
  let documents: [[UInt8]]

  init(count: Int, seed: UInt64 = 0x6e6f_7374_7270_7573) throws {
    var random = SplitMix64(seed: seed)
    var keys: [SecretKey] = []
    for _ in 0..<16 {
      while true {
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        if let key = try? SecretKey(bytes: bytes) {
          keys.append(key)
          break
        }
      }
    }
    var events: [Event] = []
    events.reserveCapacity(count)
    for index in 0..<count {
      let key = keys[index % keys.count]
      let target = Self.logUniformSize(using: &random)
      events.append(try Self.event(targetBytes: target, key: key, index: index, random: &random))
    }
    self.events = events
    self.documents = events.map { $0.jsonBytes() }
  }

  /// The mean document size in bytes.
  var meanBytes: Double {
    documents.isEmpty ? 0 : Double(documents.reduce(0) { $0 + $1.count }) / Double(documents.count)
  }

  private static func logUniformSize(using random: inout SplitMix64) -> Int {
    let ratio = Double(maximumBytes) / Double(minimumBytes)
    return Int(Double(minimumBytes) * pow(ratio, Double.random(in: 0...1, using: &random)))
  }

  private static let words = [
    "nostr", "relay", "note", "zap", "the", "a", "good", "morning", "bitcoin", "signal", "is", "and", "for",
    "with", "my", "new", "client", "push", "notifications", "working", "again", "thanks", "everyone", "gm",
    "pura", "vida", "Ça", "marche", "日本語", "のテスト", "Привет", "мир", "مرحبا", "שלום", "ok",
  ]
  private static let decorations = [
    "\n", "\n\n", " \"quoted\" ", " 🎉 ", " 👍🏽 ", " 🏳️‍🌈 ", " https://example.com/path?q=1&r=2 ",
    " https://image.nostr.build/abc123.jpg ", " C:\\path\\to ", "\t", " — ", " nostr:npub1example ",
  ]

  private static func event(
    targetBytes: Int, key: SecretKey, index: Int, random: inout SplitMix64
  ) throws -> Event {
    var tags: [[String]] = []
    let tagCount = Int.random(in: 0...4, using: &random)
    for _ in 0..<tagCount {
      switch Int.random(in: 0..<4, using: &random) {
      case 0: tags.append(["e", hex(&random), "wss://relay.example.com", "reply"])
      case 1: tags.append(["p", hex(&random)])
      case 2: tags.append(["t", words.randomElement(using: &random)!])
      default: tags.append(["client", "nostr-push-bench"])
      }
    }
    let kinds = [1, 1, 1, 1, 1, 7, 9, 1111, 30023]
    let kind = kinds.randomElement(using: &random)!
    var content = ""
    let skeleton = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1_700_000_000, kind: kind, tags: tags, content: ""
    ).signed(with: key).jsonBytes().count
    let budget = max(0, targetBytes - skeleton)
    while content.utf8.count < budget {
      if Int.random(in: 0..<6, using: &random) == 0 {
        content += decorations.randomElement(using: &random)!
      } else {
        content += words.randomElement(using: &random)! + " "
      }
    }
    while content.utf8.count > budget, !content.isEmpty { content.removeLast() }
    let createdAt = 1_700_000_000 + Int64(index)
    return try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: createdAt, kind: kind, tags: tags, content: content
    )
    .signed(with: key)
  }

  private static func hex(_ random: inout SplitMix64) -> String {
    Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
  }
}
