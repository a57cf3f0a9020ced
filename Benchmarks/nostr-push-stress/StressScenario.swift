import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting

/// The signed world of a stress run: a relay key, the account, senders with profiles, channels
/// with metadata and membership, one eligible message per wake, and hostile events that must never
/// be presented. Every event is really signed with throwaway keys generated at start.
struct StressScenario: Sendable {
  /// Channels messages are posted in (lowercase UUID v4).
  static let channelCount = 4
  /// Message kinds the resolver presents.
  static let messageKinds = [9, 40002, 45001, 45003]

  let relayKey: SecretKey
  let accountKey: SecretKey
  let senderKeys: [SecretKey]
  let channels: [String]
  /// Profiles, channel metadata and membership (plus a decoy metadata signed by another key).
  let records: [Event]
  /// One eligible message per wake, oldest first (`created_at` increasing).
  let messages: [Event]
  /// Ineligible or invalid events, each served beside a message as the newest entry.
  let hostile: [(event: Event, json: [UInt8], why: String)]

  var account: String { accountKey.publicKeyHex }

  /// A NIP-11 document naming the relay key as `self`.
  var nip11: [UInt8] {
    Array(
      JSONWriter.string(
        .object(
          JSONObject([
            "name": .string("stress relay"), "self": .string(relayKey.publicKeyHex),
            "pubkey": .string(relayKey.publicKeyHex),
          ]))
      ).utf8)
  }

  init(wakes: Int, senders: Int, origin: String, random: inout SplitMix64) throws {
    relayKey = SecretKey.generate()
    accountKey = SecretKey.generate()
    senderKeys = (0..<senders).map { _ in SecretKey.generate() }
    channels = (0..<Self.channelCount).map { _ in Self.uuidV4(&random) }
    let now = Int64(Date().timeIntervalSince1970)
    let account = accountKey.publicKeyHex
    var records: [Event] = []
    for (index, key) in senderKeys.enumerated() {
      // Every fourth sender has a hostile picture URL (SVG, another host, a non-image), every
      // tenth no profile at all.
      guard index % 10 != 9 else { continue }
      let picture =
        switch index % 4 {
        case 1: "http://example.invalid/a.png"
        case 2: origin + "/media/avatar.svg"
        case 3: origin + "/media/not-an-image.png"
        default: origin + "/media/avatar.png"
        }
      let content = JSONWriter.string(
        .object(
          JSONObject([
            "name": .string("sender\(index)"), "display_name": .string("Sender \(index)"),
            "picture": .string(picture),
          ])))
      records.append(
        try UnsignedEvent(
          pubkey: key.publicKeyHex, createdAt: now - 5000, kind: 0, tags: [], content: content
        )
        .signed(with: key))
    }
    let impostor = SecretKey.generate()
    for (index, channel) in channels.enumerated() {
      let type = ["stream", "forum", "stream", "dm"][index % 4]
      records.append(
        try UnsignedEvent(
          pubkey: relayKey.publicKeyHex, createdAt: now - 5000, kind: 39000,
          tags: [["d", channel], ["name", "channel-\(index)"], ["t", type]], content: ""
        ).signed(with: relayKey))
      let members = [account] + senderKeys.prefix(senders / 2).map(\.publicKeyHex)
      records.append(
        try UnsignedEvent(
          pubkey: relayKey.publicKeyHex, createdAt: now - 5000, kind: 39002,
          tags: [["d", channel]] + members.map { ["p", $0] }, content: ""
        ).signed(with: relayKey))
      records.append(
        try UnsignedEvent(
          pubkey: impostor.publicKeyHex, createdAt: now - 4000, kind: 39000,
          tags: [["d", channel], ["name", "IMPOSTOR"]], content: ""
        ).signed(with: impostor))
    }
    self.records = records

    let base = now - Int64(wakes) - 1000
    var messages: [Event] = []
    messages.reserveCapacity(wakes)
    let bodies = [
      "hello **there** [docs](https://example.com/x) `code`", "```\nlet x = 1\n``` after code",
      String(repeating: "long line 👩‍👩‍👧 ", count: 40), "mention nostr:npub1invalid and https://a.example/b",
      "bidi \u{202E}reversed\u{202C} and \u{0007}bell",
    ]
    for index in 0..<wakes {
      let sender = senderKeys[Int(random.next() % UInt64(senders))]
      let channel = channels[Int(random.next() % UInt64(channels.count))]
      var tags: [[String]] = [["h", channel], ["p", account]]
      if random.next() % 3 == 0 { tags.append(["e", Self.hex(&random), "", "reply"]) }
      if random.next() % 7 == 0 { tags.append(["broadcast", "1"]) }
      messages.append(
        try UnsignedEvent(
          pubkey: sender.publicKeyHex, createdAt: base + Int64(index),
          kind: Self.messageKinds[Int(random.next() % 4)], tags: tags,
          content: "\(bodies[index % bodies.count]) #\(index)"
        ).signed(with: sender))
    }
    self.messages = messages

    var hostile: [(Event, [UInt8], String)] = []
    let liar = senderKeys[0]
    for index in 0..<max(1, wakes / 10) {
      let createdAt = now + 10 + Int64(index % 200)
      let good = try UnsignedEvent(
        pubkey: liar.publicKeyHex, createdAt: createdAt, kind: 9, tags: [["p", account]],
        content: "hostile \(index)"
      ).signed(with: liar)
      switch index % 6 {
      case 0:
        // Content changed after signing: id mismatch.
        let object = Self.object(good, replacing: "content", with: .string("tampered \(index)"))
        let json = Array(JSONWriter.string(.object(object)).utf8)
        hostile.append((try Event(json: json), json, "id_mismatch"))
      case 1:
        // A signature from another key: bad signature.
        let other = try UnsignedEvent(
          pubkey: impostor.publicKeyHex, createdAt: createdAt, kind: 9, tags: [], content: "x"
        ).signed(with: impostor)
        let object = Self.object(good, replacing: "sig", with: .string(other.sig))
        let json = Array(JSONWriter.string(.object(object)).utf8)
        hostile.append((try Event(json: json), json, "bad_signature"))
      case 2:
        let own = try UnsignedEvent(
          pubkey: account, createdAt: createdAt, kind: 9, tags: [["p", account]], content: "own \(index)"
        ).signed(with: accountKey)
        hostile.append((own, own.jsonBytes(), "authored_by_account"))
      case 3:
        let blank = try UnsignedEvent(
          pubkey: liar.publicKeyHex, createdAt: createdAt, kind: 9, tags: [["p", account]], content: " \n\t "
        ).signed(with: liar)
        hostile.append((blank, blank.jsonBytes(), "blank_content"))
      case 4:
        let future = try UnsignedEvent(
          pubkey: liar.publicKeyHex, createdAt: now + 100_000, kind: 9, tags: [["p", account]],
          content: "from the future \(index)"
        ).signed(with: liar)
        hostile.append((future, future.jsonBytes(), "future_created_at"))
      default:
        let wrongKind = try UnsignedEvent(
          pubkey: liar.publicKeyHex, createdAt: createdAt, kind: 1, tags: [["p", account]],
          content: "kind 1 \(index)"
        ).signed(with: liar)
        hostile.append((wrongKind, wrongKind.jsonBytes(), "ineligible_kind"))
      }
    }
    self.hostile = hostile
  }

  private static func object(_ event: Event, replacing key: String, with value: JSONValue) -> JSONObject {
    guard case .object(let object) = event.jsonValue else { return JSONObject() }
    return JSONObject(object.members.map { $0.key == key ? JSONMember(key: key, value: value) : $0 })
  }

  static func hex(_ random: inout SplitMix64) -> String {
    Hex.encode((0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) })
  }

  static func uuidV4(_ random: inout SplitMix64) -> String {
    var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let hex = Hex.encode(bytes)
    let characters = Array(hex)
    return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
  }
}
