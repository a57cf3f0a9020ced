import Foundation
import NostrJSON
import Testing

/// `nostr-push demo --social` (`Docs/CommandLine.md`), run as a process: every social row goes
/// through every hop on loopback, each notification line shows as the table says, and it exits 0.
@Suite(.timeLimit(.minutes(2))) struct SocialDemoTests {
  @Test func theSocialDemoShowsEachRowAndExitsZero() async throws {
    let run = try await NostrPushBinary.run(["demo", "--social"])
    let lines = run.stdout.split(separator: "\n").compactMap {
      try? JSONReader().read(String($0)).objectValue
    }
    #expect(run.status == 0, "\(lines.last.map { JSONWriter.string(.object($0)) } ?? "no line")")
    let notifications = lines.filter { $0["step"] == .string("notification") }
    #expect(
      notifications.map { $0["user_info"]?.objectValue?["social_kind"]?.stringValue ?? "" } == [
        "mention", "reply", "reaction", "repost", "zap", "zap",
      ])
    let titles = notifications.compactMap { $0["title"]?.stringValue }
    #expect(titles.count == 6)
    guard titles.count == 6 else { return }
    #expect(titles[4].hasSuffix(" zapped you 21 000 sats"))
    #expect(titles[5].hasSuffix(" zapped you"))
    #expect(!titles[5].contains("sats"))
    #expect(lines.first?["push_kinds"]?.arrayValue?.contains(.integer(9735)) == true)
  }
}
