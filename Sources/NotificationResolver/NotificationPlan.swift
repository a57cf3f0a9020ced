/// Everything a Notification Service Extension sets for one wake, decided on any platform
/// (`Docs/NotificationServiceExtension.md`): the shell copies it field by field and decides nothing.
///
/// ``outcome`` is what the wake found (a message, nothing new, or the fallback with its reason);
/// the title, body, thread and routing read from it. The plan adds how to present it: the
/// interruption level and sound from the push class, the relevance, the tap's user info and
/// target, an attachment file of this notification's own and the communication fields.
///
/// `resolve` returns one in every outcome (``Resolution/plan``, ``WakeResolution/currentPlan()``);
/// `nostr-push resolve` prints it in snake_case.
public struct NotificationPlan: Sendable, Codable, Equatable {
  /// What the wake found.
  public private(set) var outcome: NotificationOutcome
  /// `<relay origin>#<message id>`, a stable string for routing a tap
  /// (`UNNotificationContent.targetContentIdentifier`); nil without a message.
  public var targetContentIdentifier: String?
  /// The tap handler's routing: `account`, `relay_origin`, `event_id`, `channel_id`, `thread_id`,
  /// each only when known — an absent key, never an empty string.
  public var userInfo: [String: String]
  /// The avatar to attach: a file of this notification's own (iOS moves attachment files away),
  /// nil when there is none.
  public var attachment: Attachment?
  /// Why a known avatar is not attached (nil when it is, or when there is no avatar at all).
  public var avatarSkipped: AvatarSkip?
  /// The interruption level: from the highest push class among the subscriptions that matched;
  /// `active` without a message.
  public var interruptionLevel: InterruptionLevel
  /// The sound: `default` for active and time-sensitive, `defaultCritical` for critical, none for
  /// passive.
  public var sound: Sound?
  /// 1.0 for a mention of the account or a direct message, 0.5 for a channel message, 0 without a
  /// message.
  public var relevanceScore: Double
  /// What a communication notification (`INSendMessageIntent`) needs; only for a message with a
  /// named sender.
  public var communication: Communication?
  /// For a direct message, the gift wrap's id (the event the relay woke for); nil otherwise.
  public var wrapID: String?
  /// The title shown without a message, in the configuration's ``NotificationStrings``.
  private var fallbackTitle: String
  /// The body shown without a message, for the outcome's reason (empty for a message).
  private var fallbackBody: String

  /// Creates a plan from its parts.
  package init(
    outcome: NotificationOutcome, targetContentIdentifier: String? = nil, userInfo: [String: String] = [:],
    attachment: Attachment? = nil, avatarSkipped: AvatarSkip? = nil,
    interruptionLevel: InterruptionLevel = .active,
    sound: Sound? = .default, relevanceScore: Double = 0, communication: Communication? = nil,
    wrapID: String? = nil, strings: NotificationStrings = .english
  ) {
    self.outcome = outcome
    self.fallbackTitle = strings.fallbackTitle
    switch outcome {
    case .fallback(let reason), .nothingNew(let reason, _):
      self.fallbackBody = strings.fallbackBody(for: reason)
    case .resolved: self.fallbackBody = ""
    }
    self.targetContentIdentifier = targetContentIdentifier
    self.userInfo = userInfo
    self.attachment = attachment
    self.avatarSkipped = avatarSkipped
    self.interruptionLevel = interruptionLevel
    self.sound = sound
    self.relevanceScore = relevanceScore
    self.communication = communication
    self.wrapID = wrapID
  }

  /// The message, when the wake resolved one.
  public var message: ResolvedNotification? {
    if case .resolved(let message) = outcome { return message }
    return nil
  }

  /// The title: the message's, else the fallback title (`New message` in English).
  public var title: String { message?.title ?? fallbackTitle }
  /// The subtitle: the message's, else none.
  public var subtitle: String? { message?.subtitle }
  /// The body: the message's (ending with `and n more` when ``moreCount`` > 0), else the
  /// fallback body for the outcome's reason (`Open the app to read it.` in English).
  public var body: String { message?.body ?? fallbackBody }
  /// The eligible messages this plan covers besides the one shown.
  public var moreCount: Int { message?.moreCount ?? 0 }
  /// The thread identifier grouping one channel's notifications; nil without a message.
  public var threadIdentifier: String? { message?.threadIdentifier }
  /// True only for nothing new when the extension holds the filtering entitlement: deliver empty
  /// content, and iOS drops the notification.
  public var suppress: Bool {
    if case .nothingNew(_, let suppress) = outcome { return suppress }
    return false
  }

  /// The avatar file attached to this notification.
  public struct Attachment: Sendable, Codable, Equatable {
    /// The file's path: this notification's own copy.
    public var file: String
    /// The file's format, one iOS attaches (its UTI: `public.png`, `public.jpeg`,
    /// `com.compuserve.gif`).
    public var format: Format

    /// Creates an attachment.
    package init(file: String, format: Format) {
      self.file = file
      self.format = format
    }

    /// The image formats a notification attachment may have.
    public enum Format: String, Sendable, Codable, CaseIterable {
      /// PNG.
      case png
      /// JPEG.
      case jpeg
      /// GIF.
      case gif

      /// The format's uniform type identifier, the attachment's type hint
      /// (`UNNotificationAttachmentOptionsTypeHintKey`).
      public var uniformTypeIdentifier: String {
        switch self {
        case .png: "public.png"
        case .jpeg: "public.jpeg"
        case .gif: "com.compuserve.gif"
        }
      }
    }
  }

  /// Why a known avatar is not attached.
  public enum AvatarSkip: String, Sendable, Codable, CaseIterable {
    /// WebP where ImageIO cannot convert it (every platform but Apple's), or bytes of no image
    /// format.
    case unsupportedFormat = "unsupported_format"
    /// Not in the cache, and not fetched (a direct message's sender is never looked up).
    case notCached = "not_cached"
    /// The download failed.
    case fetchFailed = "fetch_failed"
    /// Larger than an avatar may be (512 KiB).
    case tooLarge = "too_large"
  }

  /// How a notification may interrupt (`UNNotificationInterruptionLevel`).
  public enum InterruptionLevel: String, Sendable, Codable, CaseIterable {
    /// Silent push class: no sound, no lighting up.
    case passive
    /// The default push class, and every fallback.
    case active
    /// The time-sensitive class, and the urgent one without the critical-alert entitlement.
    case timeSensitive = "time_sensitive"
    /// The urgent class with the critical-alert entitlement.
    case critical
  }

  /// The notification's sound (`UNNotificationSound`).
  public enum Sound: String, Sendable, Codable, CaseIterable {
    /// `UNNotificationSound.default`.
    case `default`
    /// `UNNotificationSound.defaultCritical`.
    case defaultCritical = "default_critical"
  }

  /// What a communication notification needs: `INPerson` for the sender and
  /// `INSendMessageIntent` for the conversation.
  public struct Communication: Sendable, Codable, Equatable {
    /// The sender's display name.
    public var senderName: String
    /// The sender's handle: the npub.
    public var handle: String
    /// The sender's avatar, a file of its own (not the attachment's, which iOS moves); nil
    /// without one.
    public var avatarFile: String?
    /// The conversation: the thread identifier.
    public var conversationIdentifier: String
    /// The group's name (the channel's name without `#`, or a direct message's subject); nil
    /// one-to-one or unknown.
    public var groupName: String?
    /// How many others the message reached, when known.
    public var recipientCount: Int?

    /// Creates the communication fields.
    package init(
      senderName: String, handle: String, avatarFile: String?, conversationIdentifier: String,
      groupName: String?, recipientCount: Int?
    ) {
      self.senderName = senderName
      self.handle = handle
      self.avatarFile = avatarFile
      self.conversationIdentifier = conversationIdentifier
      self.groupName = groupName
      self.recipientCount = recipientCount
    }
  }
}
