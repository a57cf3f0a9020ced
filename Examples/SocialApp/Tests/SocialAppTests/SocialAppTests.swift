import SocialAppDemo
import Testing

/// What `social-app` prints: the planned social lease, then a mention, a reaction with a custom
/// emoji attached, a validated zap with its amount and a repost of the account's note.
@Suite struct SocialAppTests {
  @Test func plansASocialLeaseAndShowsEachNotification() async throws {
    let lines = try await SocialAppDemo.run()
    #expect(lines.count == 6)
    guard lines.count == 6 else { return }
    #expect(lines[0] == "app: push_kinds 9,40002,45001,45003,1059,1,6,7,16,1111,9735")
    #expect(lines[1] == "app: planned 2 subscriptions: default [6, 7, 16, 9735]; time_sensitive [1, 1111]")
    #expect(
      lines[2].hasPrefix(
        "extension: mention: Alice Martin mentioned you — Have you read this post? (relevance 1.0)"))
    #expect(
      lines[3]
        == "extension: reaction: Alice Martin reacted :party: — Push that never leaks a word. (relevance 0.3) [png attached]"
    )
    #expect(
      lines[4].hasPrefix(
        "extension: zap: Alice Martin zapped you 21 000 sats — Thanks for this / Push that never leaks a word. (relevance 0.8)"
      ))
    #expect(
      lines[5].hasPrefix("extension: repost: Alice Martin reposted your note — Push that never leaks a word.")
    )
  }
}
