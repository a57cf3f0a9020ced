import Foundation
import NostrEvent
import NostrPushTesting
import NotificationResolver
import PushLease

/// A social world on top of ``RelayScenario``: the account's notes, mentions, replies, reactions,
/// reposts and zaps signed by real keys, and a configuration whose one subscription wakes for
/// every social kind addressed to the account.
struct SocialScenario {
  let base = RelayScenario()
  /// The account's zapper (its LNURL server's key).
  let zapper = SecretKey.generate()

  var account: SecretKey { base.account }
  var sender: SecretKey { base.sender }

  /// The social kinds, `#p` = account.
  var subscription: LeaseSubscription {
    LeaseSubscription(
      filter: LeaseFilter(
        kinds: [
          EventKind.textNote, EventKind.encryptedDirectMessage, EventKind.repost, EventKind.reaction,
          EventKind.genericRepost, EventKind.comment, EventKind.zapReceipt,
        ], pTags: [account.publicKeyHex]),
      pushClass: "default")
  }

  /// A configuration for the account on `server` with `social` settings (the zapper trusted by
  /// default).
  func configuration(
    _ server: RelayFixtureServer, social: SocialSettings? = nil, avatarDirectory: String? = nil,
    canFilter: Bool = false, strings: NotificationStrings = .english
  ) throws -> ResolverConfiguration {
    var configuration = try ResolverConfiguration(
      relay: RelayOrigin(server.origin!), secretKey: account, subscriptions: [subscription],
      relayPubkey: base.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
      queryTimeout: RelayScenario.generousTimeout, avatarDirectory: avatarDirectory,
      canFilterNotifications: canFilter, strings: strings)
    configuration.social = try social ?? SocialSettings(zapperPubkeys: [zapper.publicKeyHex])
    return configuration
  }

  /// A kind 1 note (or `kind`) by `key`.
  func note(
    _ content: String, by key: SecretKey? = nil, kind: Int = EventKind.textNote, tags: [[String]] = [],
    createdAt: Int64 = RelayScenario.now - 60
  ) -> Event {
    base.sign(key ?? sender, kind: kind, content: content, tags: tags, createdAt: createdAt)
  }

  /// The account's `p` tag.
  var toAccount: [String] { ["p", account.publicKeyHex] }

  /// A zap request by `key` (the sender by default) for `msats`, about `target`.
  func zapRequest(
    by key: SecretKey? = nil, amount: String? = "21000000", target: String, extraTags: [[String]] = [],
    recipient: String? = nil
  ) -> Event {
    var tags = [
      ["p", recipient ?? account.publicKeyHex], ["e", target], ["relays", "wss://relay.example"],
    ]
    if let amount { tags.append(["amount", amount]) }
    return base.sign(
      key ?? sender, kind: EventKind.zapRequest, content: "great post ⚡", tags: tags + extraTags)
  }

  /// A zap receipt by the zapper (or `signer`) for `request`, with an invoice for `invoiceAmount`
  /// (`210u`: 21 000 sats) over the request's JSON (or `described`).
  func zapReceipt(
    _ request: Event, invoiceAmount: String = "210u", described: String? = nil, signer: SecretKey? = nil,
    bolt11: String? = nil
  ) throws -> Event {
    let description = String(decoding: request.jsonBytes(), as: UTF8.self)
    let invoice =
      try bolt11
      ?? ZapFixture.invoice(
        amount: invoiceAmount, describing: described ?? description, timestamp: RelayScenario.now)
    return base.sign(
      signer ?? zapper, kind: EventKind.zapReceipt, content: "",
      tags: [
        toAccount, ["e", request.tags.first { $0[0] == "e" }?[1] ?? ""], ["bolt11", invoice],
        ["description", description],
      ])
  }

  /// Resolves one wake with no cache.
  func resolve(_ configuration: ResolverConfiguration) async -> NotificationPlan {
    await base.resolve(configuration, cache: nil).plan
  }

  /// The thread identifier of `note` for the account on `server`.
  func thread(_ note: String, on server: RelayFixtureServer) throws -> String {
    ThreadIdentifier.make(account: account.publicKeyHex, relay: try RelayOrigin(server.origin!), note: note)
  }
}
