import EnrichmentCache
import Foundation
import NostrEvent
import NostrPushCore
import NotificationResolver
import PushLease

/// The Notification Service Extension half: read what the app saved, resolve one wake with the
/// lease's own subscriptions, and hand the `NotificationPlan` to the system (here: describe it).
public enum ChatExtension {
  // docs: resolve begin
  /// Resolves one wake for the account the app saved in `accountFile`; `secretKey` comes from the
  /// keychain the app and the extension share, `cachePath` is the shared cache.
  public static func resolveOneWake(
    accountFile: URL, secretKey: SecretKey, cachePath: String, clock: UnixClock
  ) async throws -> NotificationPlan {
    let account = try EnrolledAccount(jsonBytes: Array(try Data(contentsOf: accountFile)))
    // The relay, the subscriptions, the muted senders and the window, exactly as enrolled.
    let configuration = try ResolverConfiguration(account: account, secretKey: secretKey)
    let cache = try EnrichmentCache(path: cachePath)
    let resolver = NotificationResolver(configuration: configuration, cache: cache, clock: clock)
    return await resolver.resolve().plan  // never throws: a failure is the fallback, on time
  }
  // docs: resolve end

  /// One line for a plan: what the user would see, or why nothing was shown.
  public static func describe(_ plan: NotificationPlan) -> String {
    switch plan.outcome {
    case .resolved(let message):
      let subtitle = message.subtitle.map { " [\($0)]" } ?? ""
      return "shown: \(message.title)\(subtitle): \(message.body) (\(plan.interruptionLevel.rawValue))"
    case .nothingNew(let reason, let suppress):
      return "nothing new: \(reason.rawValue)\(suppress ? ", suppressed" : "")"
    case .fallback(let reason):
      return "fallback: \(reason.rawValue) (\(plan.title): \(plan.body))"
    }
  }
}
