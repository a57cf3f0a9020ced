import EnrichmentCache
import Foundation
import NostrEvent
import Testing

/// §1: a roster is read in place — verified from its bytes, its `p` values straight into a compact
/// key set — and gives the record `EventRecords.roster(_:)` gives for the materialised event.
@Suite struct RosterReadingTests {
  static let relayKey = try! SecretKey(hex: String(repeating: "0", count: 63) + "5")
  static let channel = "3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9c"

  static func roster(_ members: [String], extraTags: [[String]] = []) -> Event {
    try! UnsignedEvent(
      pubkey: relayKey.publicKeyHex, createdAt: 1_700_000_000, kind: 39002,
      tags: [["d", channel]] + members.map { ["p", $0] } + extraTags, content: ""
    ).signed(with: relayKey)
  }

  static func document(_ event: Event) -> String { String(decoding: event.jsonBytes(), as: UTF8.self) }

  static func read(_ events: [Event]) -> [Roster]? { read(documents: events.map(document)) }

  static func read(documents: [String]) -> [Roster]? {
    let body = Array(("[" + documents.joined(separator: ",") + "]").utf8)
    return body.withUnsafeBytes {
      EventFastReader.readRosters(
        $0, maxBytes: 4 << 20, limits: EventReadLimits.notification.with(maxTags: Event.maxTags),
        maxKept: Membership.maxStoredMembers)
    }?.compactMap { try? EventRecords.roster($0) }
  }

  @Test func givesTheRecordOfTheMaterialisedEvent() throws {
    let members = (0..<50).map { _ in SecretKey.generate().publicKeyHex }
    let event = Self.roster(members + members.prefix(5), extraTags: [["p"], ["t", "x"]])
    let read = try #require(Self.read([event]))
    #expect(read == [try EventRecords.roster(event)])
    #expect(read.first?.count == 50)
  }

  @Test func keepsTenThousandKeysCountsTheRestAndKeepsALateMembersMembership() throws {
    let members = (0..<(Membership.maxStoredMembers + 20)).map { _ in SecretKey.generate().publicKeyHex }
    let event = Self.roster(members)
    let roster = try #require(Self.read([event])?.first)
    #expect(roster == (try EventRecords.roster(event)))
    #expect(roster.count == members.count)
    #expect(roster.packedMembers.count == Membership.maxStoredMembers * 32)
    let late = roster.membership(for: members.last!)
    #expect(late.isListed == nil)
    #expect(late.recipientCount(metadataSigner: Self.relayKey.publicKeyHex) == members.count - 1)
  }

  /// The kept keys are the first 10 000 *distinct* ones in event order, wherever their repeats
  /// fall (before and past the cut), and the total counts each key once: as the materialised
  /// event's record gives them.
  @Test func keepsTheFirstDistinctKeysInEventOrderWhateverTheRepeats() throws {
    let members = (0..<(Membership.maxStoredMembers + 500)).map { _ in SecretKey.generate().publicKeyHex }
    // Every tenth key comes again right after, and every key of the first hundred again at the end.
    var listed: [String] = []
    for (index, member) in members.enumerated() {
      listed.append(member)
      if index % 10 == 0 { listed.append(member) }
    }
    listed += members.prefix(100).reversed()
    let event = Self.roster(listed)
    let roster = try #require(Self.read([event])?.first)
    #expect(roster == (try EventRecords.roster(event)))
    #expect(roster.count == members.count)
    #expect(roster.members == Array(members.prefix(Membership.maxStoredMembers)))
    #expect(roster.membership(for: members[Membership.maxStoredMembers - 1]).isListed == true)
    #expect(roster.membership(for: members[Membership.maxStoredMembers]).isListed == nil)
  }

  @Test func countsAndKeepsARepeatedKeyOnce() throws {
    let (a, b, c) = (
      SecretKey.generate().publicKeyHex, SecretKey.generate().publicKeyHex, SecretKey.generate().publicKeyHex
    )
    let roster = try #require(Self.read([Self.roster([b, a, b, c, a, c, b])])?.first)
    #expect(roster.members == [b, a, c])
    #expect(roster.count == 3)
    #expect(roster.membership(for: SecretKey.generate().publicKeyHex).isListed == false)
  }

  /// A roster larger than the verifier's buffer is hashed window by window: a valid one is
  /// kept (above), a forged one dropped.
  @Test func dropsAForgedLargeRoster() throws {
    let members = (0..<3000).map { _ in SecretKey.generate().publicKeyHex }
    let event = Self.roster(members)
    let forged = Self.document(event).replacingOccurrences(of: members[1500], with: members[1499])
    #expect(forged != Self.document(event))
    #expect(Self.read(documents: [forged]) == [])
    #expect(Self.read(documents: [Self.document(event)])?.first?.count == members.count)
  }

  @Test func dropsAForgedRosterAndRejectsAMalformedKey() throws {
    let good = Self.roster([SecretKey.generate().publicKeyHex])
    let forged = Self.document(good).replacingOccurrences(of: "\"content\":\"\"", with: "\"content\":\"x\"")
    #expect(forged != Self.document(good))
    let malformed = Self.roster([String(repeating: "A", count: 64)])
    #expect(
      Self.read(documents: [forged, Self.document(malformed), Self.document(good)]) == [
        try EventRecords.roster(good)
      ])
  }
}
