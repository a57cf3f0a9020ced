// Compiled only on iOS, macOS and visionOS (`canImport(UserNotifications)` is true on tvOS and
// watchOS too, which have no service extensions); elsewhere this module is empty. Not compiled on
// the project's Linux machines: every decision it applies is the plan's, tested there.
#if os(iOS) || os(macOS) || os(visionOS)
import EnrichmentCache
import Foundation
import Intents
import NotificationResolver
import UserNotifications

/// A Notification Service Extension that turns a content-free wake into the notification it was
/// for (`Docs/NotificationServiceExtension.md`): subclass it, override ``configuration(for:)``, and name the
/// subclass as the extension's principal class.
///
/// It resolves the wake, marks the plan presented, and applies the ``NotificationPlan`` to a copy
/// of the wake's content (badge and category from the wake survive; the sound is the plan's, since
/// the wake carries none); it decides nothing the plan does not. On expiry it hands over the best
/// plan known then synchronously, before any write (``WakeHandoff``). Each wake's content handler
/// is called exactly once, keyed by the request's identifier. A communication notification shows
/// the sender's avatar as the sender's image, not also as an attachment.
///
/// Deviation from the spec's signature: ``configuration(for:)`` returns a ``Configuration`` (every
/// account enrolled with the relay and the shared cache), not one `ResolverConfiguration`, because
/// a wake names no account and the cache is opened by the app's code.
open class NostrNotificationService: UNNotificationServiceExtension, @unchecked Sendable {
  /// What one wake needs: the accounts enrolled with the relay that sent it, and the shared cache.
  public struct Configuration: Sendable {
    /// One configuration per account, in the app's order (the first one's relay settings apply).
    public var accounts: [ResolverConfiguration]
    /// The App Group cache, opened with a busy timeout of at most 250 ms; nil for none.
    public var cache: EnrichmentCache?

    /// Creates a configuration.
    public init(accounts: [ResolverConfiguration], cache: EnrichmentCache?) {
      self.accounts = accounts
      self.cache = cache
    }
  }

  /// The part of its life iOS gives an extension, well inside Apple's 30 s.
  static let timeLimit: Duration = .seconds(25)

  /// Every wake this instance holds, keyed by its request's identifier (the platform-neutral
  /// bookkeeping, tested on Linux): content goes to iOS exactly once per wake.
  private let handoff = WakeHandoff()

  /// The wake's accounts and cache, read from the App Group (accounts) and the Keychain (keys);
  /// nil shows the wake's own content. The one method a subclass writes.
  open func configuration(for request: UNNotificationRequest) -> Configuration? { nil }

  /// Starts resolving the wake; the plan arrives by the extension's deadline.
  override open func didReceive(
    _ request: UNNotificationRequest,
    withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
  ) {
    guard let configuration = configuration(for: request),
      let resolver = try? NotificationResolver(
        configurations: Self.localized(configuration.accounts), cache: configuration.cache)
    else { return contentHandler(request.content) }
    let session = resolver.start(deadline: .now + Self.timeLimit)
    // iOS calls the handler on whatever thread; the closure is called exactly once.
    let handler = UncheckedContentHandler(contentHandler)
    let wake = UncheckedContent(request.content)
    let requestID = request.identifier
    handoff.begin(requestID, session: session) { plan in
      handler.call(Self.content(for: plan, wake: wake.content))

    }
    let handoff = self.handoff
    Task { await handoff.complete(requestID) }
  }

  /// Hands iOS the best plan known now for every pending wake, synchronously (marking presented
  /// follows, best-effort and bounded).
  override open func serviceExtensionTimeWillExpire() {
    handoff.expire()
  }

  /// `accounts` with the extension's `Localizable.strings` (``NotificationStrings/init(bundle:table:)``)
  /// in place of the English defaults; an account whose strings the subclass set keeps them.
  static func localized(_ accounts: [ResolverConfiguration]) -> [ResolverConfiguration] {
    guard accounts.contains(where: { $0.strings == .english }) else { return accounts }
    let bundled = NotificationStrings(bundle: .main)
    return accounts.map { account in
      var account = account
      if account.strings == .english { account.strings = bundled }
      return account
    }
  }

  /// `plan` applied to a copy of the wake's content; empty content (dropped) when it suppresses.
  static func content(for plan: NotificationPlan, wake: UNNotificationContent) -> UNNotificationContent {
    guard !plan.suppress, let content = wake.mutableCopy() as? UNMutableNotificationContent else {
      return UNNotificationContent()
    }
    content.title = plan.title
    content.subtitle = plan.subtitle ?? ""
    content.body = plan.body
    content.threadIdentifier = plan.threadIdentifier ?? content.threadIdentifier
    content.targetContentIdentifier = plan.targetContentIdentifier
    for (key, value) in plan.userInfo { content.userInfo[key] = value }
    content.interruptionLevel = interruptionLevel(plan.interruptionLevel)
    content.relevanceScore = plan.relevanceScore
    content.sound = plan.sound.map { $0 == .defaultCritical ? UNNotificationSound.defaultCritical : .default }
    if let communication = plan.communication {
      let intent = messageIntent(communication, account: plan.message?.account)
      let interaction = INInteraction(intent: intent, response: nil)
      interaction.direction = .incoming
      interaction.donate(completion: nil)
      // The sender's image shows the avatar; the attachment as well would show it twice. Without
      // the Communication Notifications capability the update fails and the attachment stays.
      if let updated = try? content.updating(from: intent) { return updated }
    }
    if let attachment = plan.attachment,
      let file = try? UNNotificationAttachment(
        identifier: "avatar", url: URL(fileURLWithPath: attachment.file),
        options: [UNNotificationAttachmentOptionsTypeHintKey: attachment.format.uniformTypeIdentifier])
    {
      content.attachments = [file]
    }
    return content
  }

  /// The incoming message as `INSendMessageIntent`: the sender with their own avatar copy; for a
  /// group, the account and one placeholder recipient named after the group (never one `INPerson`
  /// per member).
  static func messageIntent(_ communication: NotificationPlan.Communication, account: String?)
    -> INSendMessageIntent
  {
    let image = communication.avatarFile.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
      .map { INImage(imageData: $0) }
    let sender = INPerson(
      personHandle: INPersonHandle(value: communication.handle, type: .unknown), nameComponents: nil,
      displayName: communication.senderName, image: image, contactIdentifier: nil,
      customIdentifier: communication.handle)
    let me = INPerson(
      personHandle: INPersonHandle(value: account, type: .unknown), nameComponents: nil, displayName: nil,
      image: nil, contactIdentifier: nil, customIdentifier: account, isMe: true)
    let group = communication.groupName.map { name in
      INPerson(
        personHandle: INPersonHandle(value: communication.conversationIdentifier, type: .unknown),
        nameComponents: nil, displayName: name, image: nil, contactIdentifier: nil, customIdentifier: nil)
    }
    return INSendMessageIntent(
      recipients: [me] + (group.map { [$0] } ?? []), outgoingMessageType: .outgoingMessageText, content: nil,
      speakableGroupName: communication.groupName.map { INSpeakableString(spokenPhrase: $0) },
      conversationIdentifier: communication.conversationIdentifier, serviceName: nil, sender: sender,
      attachments: nil)
  }

  private static func interruptionLevel(_ level: NotificationPlan.InterruptionLevel)
    -> UNNotificationInterruptionLevel
  {
    switch level {
    case .passive: .passive
    case .active: .active
    case .timeSensitive: .timeSensitive
    case .critical: .critical
    }
  }
}

/// iOS's content handler, called once from whichever path delivers (`WakeHandoff`).
///
/// `@unchecked Sendable`: UserNotifications documents no isolation for the handler and calls for
/// it from any thread; the handoff calls it exactly once.
private struct UncheckedContentHandler: @unchecked Sendable {
  let call: (UNNotificationContent) -> Void

  init(_ call: @escaping (UNNotificationContent) -> Void) { self.call = call }
}

/// The wake's content, only read (copied with `mutableCopy()`) after it is handed over.
///
/// `@unchecked Sendable`: `UNNotificationContent` is immutable.
private struct UncheckedContent: @unchecked Sendable {
  let content: UNNotificationContent

  init(_ content: UNNotificationContent) { self.content = content }
}
#endif
