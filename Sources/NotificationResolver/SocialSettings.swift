import Foundation
import NostrEvent

/// What the extension alone applies to social notifications, and the keys that vouch for zaps:
/// muted words and hashtags the relay cannot see, muted threads and an `onlyFrom` set the relay's
/// `ignore` filters may not all hold, and the account's zapper keys.
///
/// Decisions where the spec is silent: muted words match case-insensitively anywhere in a note's
/// text (a word of `["nsfw"]` keeps out `#NSFW` and `unsafe NSFW stuff`), for kinds with text
/// (mentions, replies, comments and a repost's embedded note); hashtags compare to `t` tags
/// without `#` and case-insensitively; for a zap the sender that muting and `onlyFrom` judge is
/// the zap request's author (the receipt's signer is the zapper service), and a zap whose request
/// does not verify fails `onlyFrom`.
public struct SocialSettings: Sendable, Hashable {
  /// The most entries each list holds.
  public static let maxEntries = 10_000
  /// The longest muted word, in characters.
  public static let maxWordLength = 256

  /// The LNURL `nostrPubkey`s of the account's lightning address (64 lowercase hex): only a
  /// receipt they signed is a validated zap, with an amount.
  public let zapperPubkeys: Set<String>
  /// When set, only these senders' events are presented (64 lowercase hex), e.g. the follows.
  public let onlyFrom: Set<String>?
  /// Words (lower-cased) whose presence in a note's text keeps it out.
  public let mutedWords: [String]
  /// Hashtags (lower-cased, without `#`) whose `t` tag keeps an event out.
  public let mutedHashtags: Set<String>
  /// Root event ids (64 lowercase hex) of muted threads: an event whose `e` or `E` tag names one
  /// is kept out.
  public let mutedThreads: Set<String>

  /// No zapper keys, no filters: every social event the subscriptions match is presented, and no
  /// zap is validated.
  public static let none = SocialSettings()

  private init() {
    zapperPubkeys = []
    onlyFrom = nil
    mutedWords = []
    mutedHashtags = []
    mutedThreads = []
  }

  /// Settings checked once: keys and ids 64 hex (field `zapper_pubkeys`, `only_from`,
  /// `muted_threads`), words and hashtags non-blank and at most ``maxWordLength`` characters, each
  /// list at most ``maxEntries`` long.
  ///
  /// - Throws: `invalid_key` for a key or id that is not 64 hex, `out_of_range` for a list too
  ///   long or a word blank or too long.
  public init(
    zapperPubkeys: [String] = [], onlyFrom: [String]? = nil, mutedWords: [String] = [],
    mutedHashtags: [String] = [], mutedThreads: [String] = []
  ) throws(ResolverError) {
    self.zapperPubkeys = try Self.ids(zapperPubkeys, field: "zapper_pubkeys")
    self.onlyFrom = try onlyFrom.map { list throws(ResolverError) in try Self.ids(list, field: "only_from") }
    self.mutedWords = try Self.words(mutedWords, field: "muted_words")
    self.mutedHashtags = Set(
      try Self.words(
        mutedHashtags.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }, field: "muted_hashtags"))
    self.mutedThreads = try Self.ids(mutedThreads, field: "muted_threads")
  }

  /// Whether `text` holds a muted word.
  func mutes(text: String) -> Bool {
    guard !mutedWords.isEmpty else { return false }
    let lowered = text.lowercased()
    return mutedWords.contains { lowered.contains($0) }
  }

  /// Whether `tags` name a muted hashtag (`t`) or a muted thread (`e` or `E`).
  func mutes(tags: [[String]]) -> Bool {
    for tag in tags where tag.count >= 2 {
      switch tag[0] {
      case "t": if mutedHashtags.contains(tag[1].lowercased()) { return true }
      case "e", "E": if let id = NostrID(lenient: tag[1]), mutedThreads.contains(id.hex) { return true }
      default: continue
      }
    }
    return false
  }

  /// Whether `sender` passes `onlyFrom` (nil: an unknown sender, which passes only without it).
  func admits(sender: String?) -> Bool {
    guard let onlyFrom else { return true }
    return sender.map(onlyFrom.contains) ?? false
  }

  private static func ids(_ values: [String], field: String) throws(ResolverError) -> Set<String> {
    guard values.count <= maxEntries else {
      throw ResolverError(code: .outOfRange, field: field, message: "more than \(maxEntries)")
    }
    var kept: Set<String> = []
    for (index, value) in values.enumerated() {
      guard let id = NostrID(lenient: value) else {
        throw ResolverError(code: .invalidKey, field: "\(field)[\(index)]", message: "not 64 hex characters")
      }
      kept.insert(id.hex)
    }
    return kept
  }

  private static func words(_ values: [String], field: String) throws(ResolverError) -> [String] {
    guard values.count <= maxEntries else {
      throw ResolverError(code: .outOfRange, field: field, message: "more than \(maxEntries)")
    }
    var kept: [String] = []
    for (index, value) in values.enumerated() {
      let word = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
      guard !word.isEmpty, word.count <= maxWordLength else {
        throw ResolverError(
          code: .outOfRange, field: "\(field)[\(index)]", message: "blank or longer than \(maxWordLength)")
      }
      if !kept.contains(word) { kept.append(word) }
    }
    return kept
  }
}
