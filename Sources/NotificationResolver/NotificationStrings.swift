/// Every word the resolver and the extension's shell put in front of the user, as one value:
/// English by default, replaceable through ``ResolverConfiguration/strings``.
///
/// Each string has a key (``Key``), the name it has in a `Localizable.strings` table. Build a
/// table of your own with ``init(_:)``, which reads only the keys below (the rest of an app's
/// table is ignored), so the app's whole table can be passed as is. On Apple platforms the
/// shell (`NostrNotificationService`) fills it from the extension's `Localizable.strings` when
/// the keys are present there.
///
/// | key | English default | argument |
/// | --- | --- | --- |
/// | `nostr_push.fallback.title` | `New message` | — |
/// | `nostr_push.fallback.body` | `Open the app to read it.` | — |
/// | `nostr_push.fallback.body.<reason>` | the fallback body | — (one per ``FallbackReason`` raw value) |
/// | `nostr_push.sender.anonymous` | `Someone` | — |
/// | `nostr_push.more` | `and %d more` | the number of other messages covered |
/// | `nostr_push.direct.group` | `with %d others` | the participants besides the account |
/// | `nostr_push.channel.subtitle` | `#%@` | the channel's name |
/// | `nostr_push.body.link` | `[link]` | — |
/// | `nostr_push.body.code` | `[code]` | — |
/// | `nostr_push.body.file` | `[file]` | — |
/// | `nostr_push.body.mention` | `@%@` | the mentioned person's name or compact npub |
/// | `nostr_push.social.reply` | `%@ replied` | the sender's name |
/// | `nostr_push.social.mention` | `%@ mentioned you` | the sender's name |
/// | `nostr_push.social.repost` | `%@ reposted your note` | the sender's name |
/// | `nostr_push.social.reaction` | `%1$@ reacted %2$@` | the sender's name, the reaction |
/// | `nostr_push.social.zap` | `%@ zapped you` | the zapper's name |
/// | `nostr_push.social.zap.amount` | `%1$@ zapped you %2$@ sats` | the zapper's name, the sats |
/// | `nostr_push.social.your_note` | `your note` | — |
/// | `nostr_push.social.anonymous` | `Anonymous` | — |
/// | `nostr_push.social.encrypted` | `Encrypted message` | — |
/// | `nostr_push.number.grouping` | ` ` (a space) | — (between groups of three digits: `21 000`) |
///
/// A format takes one argument, written `%d`, `%@`, `%lld` or `%1$@` (any of them; the argument
/// is shown as text) and may leave it out; `%%` is a percent sign. A format of two arguments
/// (the reaction and the zap amount) takes `%@` for each in order, or `%1$@` and `%2$@` in any
/// order.
///
/// Decisions where the spec is silent: the fallback body may differ per ``FallbackReason``
/// (`nostr_push.fallback.body.timeout`, …) — by default every reason reads the same, because the
/// fallback reveals nothing; the `#` of a channel subtitle and the `@` of a mention are formats
/// too, for scripts that write them otherwise. The message's own words (its preview, the
/// sender's name, a direct message's subject) are never translated.
public struct NotificationStrings: Sendable, Hashable {
  /// The name of one string in a `Localizable.strings` table.
  public struct Key: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The table key, `nostr_push.…`.
    public let rawValue: String

    /// The key named `rawValue` when it is one of ``all``, else nil.
    public init?(rawValue: String) {
      guard Self.all.contains(where: { $0.rawValue == rawValue }) else { return nil }
      self.rawValue = rawValue
    }

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The table key.
    public var description: String { rawValue }

    /// The fallback notification's title.
    public static let fallbackTitle = Key("nostr_push.fallback.title")
    /// The fallback notification's body, for every reason without a body of its own.
    public static let fallbackBody = Key("nostr_push.fallback.body")
    /// The title when the sender has neither a name nor a displayable key.
    public static let anonymousSender = Key("nostr_push.sender.anonymous")
    /// The body's last line when a notification covers more messages (a format of the count).
    public static let moreMessages = Key("nostr_push.more")
    /// A group direct message's subtitle (a format of the participants besides the account).
    public static let groupConversation = Key("nostr_push.direct.group")
    /// A named channel's subtitle (a format of the channel's name).
    public static let channelSubtitle = Key("nostr_push.channel.subtitle")
    /// What a bare link in a message's text reads as.
    public static let link = Key("nostr_push.body.link")
    /// What a fenced code block in a message's text reads as.
    public static let code = Key("nostr_push.body.code")
    /// The body of a file message (its content, a URL, is never shown).
    public static let file = Key("nostr_push.body.file")
    /// A `nostr:` mention in a message's text (a format of the name).
    public static let mention = Key("nostr_push.body.mention")

    /// A reply's title (a format of the sender's name).
    public static let socialReply = Key("nostr_push.social.reply")
    /// A mention's title (a format of the sender's name).
    public static let socialMention = Key("nostr_push.social.mention")
    /// A repost's title (a format of the sender's name).
    public static let socialRepost = Key("nostr_push.social.repost")
    /// A reaction's title (a format of the sender's name and the reaction).
    public static let socialReaction = Key("nostr_push.social.reaction")
    /// An unvalidated zap's title (a format of the zapper's name): never an amount.
    public static let socialZap = Key("nostr_push.social.zap")
    /// A validated zap's title (a format of the zapper's name and the sats).
    public static let socialZapAmount = Key("nostr_push.social.zap.amount")
    /// What stands for the account's note when its text is not known.
    public static let yourNote = Key("nostr_push.social.your_note")
    /// The name of an anonymous zapper.
    public static let anonymousZapper = Key("nostr_push.social.anonymous")
    /// The body of a NIP-04 direct message (never decrypted).
    public static let encryptedMessage = Key("nostr_push.social.encrypted")
    /// The separator between groups of three digits in an amount.
    public static let groupingSeparator = Key("nostr_push.number.grouping")

    /// The fallback body for one `reason`; unset, it reads ``fallbackBody``.
    public static func fallbackBody(_ reason: FallbackReason) -> Key {
      Key("nostr_push.fallback.body." + reason.rawValue)
    }

    /// The keys that are formats of one argument.
    static let formats: Set<Key> = [
      moreMessages, groupConversation, channelSubtitle, mention, socialReply, socialMention, socialRepost,
      socialZap,
    ]
    /// The keys that are formats of two arguments.
    static let pairFormats: Set<Key> = [socialReaction, socialZapAmount]

    /// Every key, in the table's order.
    public static let all: [Key] =
      [fallbackTitle, fallbackBody] + FallbackReason.allCases.map(fallbackBody)
      + [anonymousSender, moreMessages, groupConversation, channelSubtitle, link, code, file, mention]
      + [
        socialReply, socialMention, socialRepost, socialReaction, socialZap, socialZapAmount, yourNote,
        anonymousZapper, encryptedMessage, groupingSeparator,
      ]
  }

  /// The English defaults.
  public static let english = NotificationStrings(entries: [:])

  /// The English text of each key (reason bodies have none: they read the fallback body).
  private static let defaults: [Key: String] = [
    .fallbackTitle: "New message", .fallbackBody: "Open the app to read it.", .anonymousSender: "Someone",
    .moreMessages: "and %d more", .groupConversation: "with %d others", .channelSubtitle: "#%@",
    .link: "[link]", .code: "[code]", .file: "[file]", .mention: "@%@", .socialReply: "%@ replied",
    .socialMention: "%@ mentioned you", .socialRepost: "%@ reposted your note",
    .socialReaction: "%1$@ reacted %2$@",
    .socialZap: "%@ zapped you", .socialZapAmount: "%1$@ zapped you %2$@ sats", .yourNote: "your note",
    .anonymousZapper: "Anonymous", .encryptedMessage: "Encrypted message", .groupingSeparator: " ",
  ]

  /// The replaced entries, by key.
  private let entries: [Key: String]

  private init(entries: [Key: String]) { self.entries = entries }

  /// The strings of `table` (`Localizable.strings` keys to text), English for every key it lacks.
  ///
  /// Keys that are not ``Key/all`` are ignored. Throws `invalid_strings` (field: the key) when a
  /// format holds a `%` sequence other than its one argument, or any other string holds a `%`
  /// that is not `%%`.
  public init(_ table: [String: String]) throws(ResolverError) {
    var entries: [Key: String] = [:]
    for key in Key.all {
      guard let text = table[key.rawValue] else { continue }
      guard Self.isValid(text, for: key) else {
        throw ResolverError(
          code: .invalidStrings, field: key.rawValue,
          message: "a format takes one argument (%d, %@, %1$@, …); other text may hold only %%")
      }
      entries[key] = text
    }
    self.entries = entries
  }

  /// The strings of `table` keeping only its valid entries (English for the rest): what the shell
  /// builds from a bundle, where a broken translation must not cost the notification.
  public init(validEntriesOf table: [String: String]) {
    var entries: [Key: String] = [:]
    for key in Key.all {
      if let text = table[key.rawValue], Self.isValid(text, for: key) { entries[key] = text }
    }
    self.entries = entries
  }

  /// The text for `key` as written (a format's placeholders included): the table's, else
  /// English; a reason's fallback body falls back to ``Key/fallbackBody``.
  public func text(_ key: Key) -> String {
    if let text = entries[key] ?? Self.defaults[key] { return text }
    return entries[.fallbackBody] ?? Self.defaults[.fallbackBody] ?? ""
  }

  /// The fallback notification's title (`New message`).
  public var fallbackTitle: String { literal(.fallbackTitle) }
  /// The fallback notification's body for `reason` (`Open the app to read it.`).
  public func fallbackBody(for reason: FallbackReason) -> String { literal(.fallbackBody(reason)) }
  /// The title for a sender without a name or displayable key (`Someone`).
  public var anonymousSender: String { literal(.anonymousSender) }
  /// The body's last line for `count` more messages (`and 2 more`).
  public func moreMessages(_ count: Int) -> String { format(.moreMessages, String(count)) }
  /// A group direct message's subtitle for `count` other participants (`with 2 others`).
  public func groupConversation(_ count: Int) -> String { format(.groupConversation, String(count)) }
  /// A channel's subtitle for its `name` (`#general`).
  public func channelSubtitle(_ name: String) -> String { format(.channelSubtitle, name) }
  /// What a bare link reads as (`[link]`).
  public var link: String { literal(.link) }
  /// What a fenced code block reads as (`[code]`).
  public var code: String { literal(.code) }
  /// The body of a file message (`[file]`).
  public var file: String { literal(.file) }
  /// A mention of `name` in a body (`@alice`).
  public func mention(_ name: String) -> String { format(.mention, name) }

  /// A reply's title for the sender `name` (`Alice replied`).
  public func reply(_ name: String) -> String { format(.socialReply, name) }
  /// A mention's title for the sender `name` (`Alice mentioned you`).
  public func mentioned(_ name: String) -> String { format(.socialMention, name) }
  /// A repost's title for the sender `name` (`Alice reposted your note`).
  public func reposted(_ name: String) -> String { format(.socialRepost, name) }
  /// A reaction's title for the sender `name` and the `reaction` (`Alice reacted ❤️`).
  public func reacted(_ name: String, _ reaction: String) -> String { pair(.socialReaction, name, reaction) }
  /// An unvalidated zap's title for the zapper `name` (`Alice zapped you`).
  public func zapped(_ name: String) -> String { format(.socialZap, name) }
  /// A validated zap's title for the zapper `name` and `sats` (`Alice zapped you 21 000 sats`).
  public func zapped(_ name: String, sats: UInt64) -> String {
    pair(.socialZapAmount, name, grouped(sats))
  }
  /// What stands for the account's note when its text is not known (`your note`).
  public var yourNote: String { literal(.yourNote) }
  /// The name of an anonymous zapper (`Anonymous`).
  public var anonymousZapper: String { literal(.anonymousZapper) }
  /// The body of a NIP-04 direct message (`Encrypted message`).
  public var encryptedMessage: String { literal(.encryptedMessage) }

  /// `value` in digits with the grouping separator between groups of three (`21 000`).
  public func grouped(_ value: UInt64) -> String {
    let digits = Array(String(value))
    var text = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { text += literal(.groupingSeparator) }
      text.append(digit)
    }
    return text
  }

  /// A format of two arguments.
  private func pair(_ key: Key, _ first: String, _ second: String) -> String {
    StringsFormat(text(key), arity: 2).map { $0(first, second) } ?? text(key)
  }

  /// A plain string: its `%%` read as `%`.
  private func literal(_ key: Key) -> String {
    StringsFormat(text(key)).map { $0("") } ?? text(key)
  }

  /// A format with its argument.
  private func format(_ key: Key, _ argument: String) -> String {
    StringsFormat(text(key)).map { $0(argument) } ?? text(key)
  }

  /// Whether `text` is acceptable for `key`: a valid format, with no placeholder unless the key
  /// is a format.
  private static func isValid(_ text: String, for key: Key) -> Bool {
    guard let format = StringsFormat(text, arity: Key.pairFormats.contains(key) ? 2 : 1) else { return false }
    return Key.formats.contains(key) || Key.pairFormats.contains(key) || !format.hasPlaceholder
  }
}
