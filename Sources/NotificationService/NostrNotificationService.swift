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
/// of the wake's content (badge, sound and category from the wake survive); it decides nothing the
/// plan does not. On expiry it applies the best plan known then. The content handler is called
/// exactly once.
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

  private let lock = NSLock()
  private var session: WakeResolution?
  private var request: UNNotificationRequest?
  private var contentHandler: ((UNNotificationContent) -> Void)?

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
        configurations: configuration.accounts, cache: configuration.cache)
    else { return contentHandler(request.content) }
    let session = resolver.start(deadline: .now + Self.timeLimit)
    lock.withLock { (self.session, self.request, self.contentHandler) = (session, request, contentHandler) }
    Task { await self.present(await session.plan().plan) }
  }

  /// Presents the best plan known now (the expiry path), unless the final one was presented.
  override open func serviceExtensionTimeWillExpire() {
    guard let session = lock.withLock({ self.session }) else { return }
    let plan = session.currentPlan()
    Task { await self.present(plan) }
  }

  /// Takes the content handler (once), marks `plan` presented, then hands iOS its content.
  private func present(_ plan: NotificationPlan) async {
    let taken = lock.withLock {
      () -> (WakeResolution, UNNotificationRequest, (UNNotificationContent) -> Void)? in
      guard let session = self.session, let request = self.request, let handler = self.contentHandler else {
        return nil
      }
      self.contentHandler = nil
      return (session, request, handler)
    }
    guard case let (session, request, contentHandler)? = taken else { return }
    await session.markPresented(plan)
    contentHandler(Self.content(for: plan, wake: request.content))
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
    if let attachment = plan.attachment,
      let file = try? UNNotificationAttachment(
        identifier: "avatar", url: URL(fileURLWithPath: attachment.file),
        options: [UNNotificationAttachmentOptionsTypeHintKey: attachment.format.uniformTypeIdentifier])
    {
      content.attachments = [file]
    }
    guard let communication = plan.communication else { return content }
    let intent = messageIntent(communication, account: plan.message?.account)
    let interaction = INInteraction(intent: intent, response: nil)
    interaction.direction = .incoming
    interaction.donate(completion: nil)
    return (try? content.updating(from: intent)) ?? content
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
#endif
