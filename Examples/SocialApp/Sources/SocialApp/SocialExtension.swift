import EnrichmentCache
import NostrEvent
import NostrPushCore
import NotificationResolver
import PushLease

/// The extension half: resolve one wake with the lease's own subscriptions, the account's zapper
/// key (the LNURL `nostrPubkey` of its lightning address, which the app resolved and saved) and
/// the muted words only the extension can apply.
public enum SocialExtension {
  /// The plan for one wake.
  public static func resolveOneWake(
    relay: String, secretKey: SecretKey, subscriptions: [LeaseSubscription], zapperPubkeys: [String],
    mutedWords: [String], cachePath: String, avatarDirectory: String, clock: UnixClock
  ) async throws -> NotificationPlan {
    var configuration = try ResolverConfiguration(
      relay: RelayOrigin(relay), secretKey: secretKey, subscriptions: subscriptions,
      avatarDirectory: avatarDirectory)
    configuration.social = try SocialSettings(zapperPubkeys: zapperPubkeys, mutedWords: mutedWords)
    let cache = try? EnrichmentCache(path: cachePath)
    return await NotificationResolver(configuration: configuration, cache: cache, clock: clock).resolve().plan
  }

  /// One line for a plan: its social kind, title, body and attachment format.
  public static func describe(_ plan: NotificationPlan) -> String {
    let kind = plan.userInfo["social_kind"] ?? "none"
    let body = plan.body.replacingOccurrences(of: "\n", with: " / ")
    let attachment = plan.attachment.map { " [\($0.format.rawValue) attached]" } ?? ""
    return "\(kind): \(plan.title) — \(body) (relevance \(plan.relevanceScore))\(attachment)"
  }
}
