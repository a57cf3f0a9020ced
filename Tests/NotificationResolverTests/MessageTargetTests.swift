import NotificationResolver
import Testing

@Suite struct MessageTargetTests {
  private static let channel = "3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9c"
  private static let parent = String(repeating: "ab", count: 32)
  private static let root = String(repeating: "cd", count: 32)
  private static let other = String(repeating: "ef", count: 32)

  @Test func routesAThreadReplyToItsParent() {
    let tags = [["h", Self.channel], ["e", Self.root, "", "root"], ["e", Self.parent, "", "reply"]]
    let target = MessageTarget(eventID: Self.other, tags: tags)
    #expect(target == MessageTarget(eventID: Self.other, channelID: Self.channel, threadID: Self.parent))
  }

  @Test func routesANestedReplyToTheLastReplyMarker() {
    let tags = [
      ["e", Self.root, "", "root"], ["e", Self.other, "", "reply"], ["e", Self.parent, "wss://r", "reply"],
    ]
    #expect(MessageTarget.threadID(in: tags) == Self.parent)
  }

  @Test func skipsAMalformedLastReplyMarker() {
    let tags = [
      ["e", Self.root, "", "root"], ["e", Self.parent, "", "reply"],
      ["e", String(Self.other.dropLast()), "", "reply"],
      ["e", Self.other + "0", "", "reply"], ["e", "zz" + String(Self.other.dropFirst(2)), "", "reply"],
    ]
    #expect(MessageTarget.threadID(in: tags) == Self.parent)
  }

  @Test func lowerCasesAnUppercaseReplyValue() {
    #expect(MessageTarget.threadID(in: [["e", Self.parent.uppercased(), "", "reply"]]) == Self.parent)
  }

  @Test func usesTheRootForADirectReplyToTheRoot() {
    #expect(MessageTarget.threadID(in: [["e", Self.root, "", "root"], ["p", Self.other]]) == Self.root)
  }

  @Test func givesNoThreadForABroadcastReply() {
    let tags = [["e", Self.root, "", "root"], ["e", Self.parent, "", "reply"], ["broadcast", "1"]]
    #expect(MessageTarget.threadID(in: tags) == nil)
  }

  @Test func givesNoThreadForUnmarkedOrShortTags() {
    #expect(
      MessageTarget.threadID(in: [
        ["e", Self.parent], ["e", Self.root, ""], ["e", Self.other, "", "mention"],
      ]) == nil)
  }

  @Test(arguments: [
    ("3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9c", true),
    ("3f2a9c1e-7b4d-4e8a-ac2b-1d5e6f7a8b9c", true),
    ("3F2A9C1E-7B4D-4E8A-9C2B-1D5E6F7A8B9C", false),
    ("3f2a9c1e-7b4d-3e8a-9c2b-1d5e6f7a8b9c", false),
    ("3f2a9c1e-7b4d-4e8a-cc2b-1d5e6f7a8b9c", false),
    ("3f2a9c1e7b4d4e8a9c2b1d5e6f7a8b9c", false),
    ("3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9", false),
    ("3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9g", false),
    ("general", false),
  ])
  func acceptsOnlyLowercaseUUIDv4ChannelIDs(value: String, valid: Bool) {
    #expect(MessageTarget.channelID(in: [["h", value]]) == (valid ? value : nil))
  }

  @Test func readsOnlyTheFirstHTag() {
    #expect(MessageTarget.channelID(in: [["h", "bad"], ["h", Self.channel]]) == nil)
    #expect(MessageTarget.channelID(in: [["h"], ["h", Self.channel]]) == Self.channel)
  }
}
