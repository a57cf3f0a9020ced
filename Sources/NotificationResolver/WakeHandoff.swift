import NostrPushCore

/// Hands each wake's content to iOS exactly once, by whichever path gets there first: the final
/// plan, or the expiry path. The bookkeeping of a Notification Service Extension, apart from
/// UserNotifications so that it runs, and is tested, on every platform; `NostrNotificationService`
/// is a thin shell over it.
///
/// - The normal path (``complete(_:)``) awaits the final plan, marks it presented, then delivers
///   it — marking comes first because iOS may end the extension as soon as it has the content.
/// - The expiry path (``expire()``) delivers every pending wake's current plan **synchronously,
///   before any await**: iOS terminates the extension just after `serviceExtensionTimeWillExpire`
///   returns, so a handler waiting on a SQLite write would lose the notification to the wake's own
///   content. Marking those plans presented then runs best-effort, each bounded by
///   ``expiryMarkingBound``; a mark that does not land leaves the message's claim to expire, and a
///   later wake presents it again (a stated repeat, never a loss).
///
/// Wakes are keyed by the request's identifier, so a second `didReceive` on the same extension
/// instance cannot orphan the first one's handler. Registering an identifier that is still pending
/// delivers the earlier registration's current plan at once (iOS does not reuse identifiers; this
/// only keeps every handler called).
public final class WakeHandoff: Sendable {
  /// How long the expiry path lets each mark run after its content was delivered.
  public static let expiryMarkingBound: Duration = .milliseconds(500)

  /// One wake waiting for its content: its session and the closure that hands iOS the content.
  private struct Pending: Sendable {
    let session: WakeResolution
    let deliver: @Sendable (NotificationPlan) -> Void
  }

  private let pending = Locked<[String: Pending]>([:])

  /// Creates an empty handoff.
  public init() {}

  /// Registers the wake `requestID`: its `session` and `deliver`, the closure that applies a plan to
  /// the wake's content and calls iOS's content handler. `deliver` is called exactly once.
  public func begin(
    _ requestID: String, session: WakeResolution, deliver: @escaping @Sendable (NotificationPlan) -> Void
  ) {
    let replaced = pending.withLock { pending in
      pending.updateValue(Pending(session: session, deliver: deliver), forKey: requestID)
    }
    if let replaced { Self.deliverNow(replaced) }
  }

  /// The normal path: awaits the wake's final plan, marks it presented, then delivers it — unless
  /// the expiry path delivered first. Returns whether this call delivered.
  @discardableResult
  public func complete(_ requestID: String) async -> Bool {
    guard let session = pending.withLock({ $0[requestID]?.session }) else { return false }
    let plan = await session.plan().plan
    await session.markPresented(plan)
    // Taken only now: while the mark was awaited, the entry stayed where expiry finds it.
    guard let entry = pending.withLock({ $0.removeValue(forKey: requestID) }) else { return false }
    entry.deliver(plan)
    return true
  }

  /// The expiry path: delivers every pending wake's current plan before returning, then marks
  /// those plans presented in the background, each bounded by ``expiryMarkingBound``.
  public func expire() {
    let entries = pending.withLock { pending in
      defer { pending.removeAll() }
      return Array(pending.values)
    }
    for entry in entries { Self.deliverNow(entry) }
  }

  /// The identifiers still waiting for their content.
  public var pendingRequestIDs: [String] {
    pending.withLock { Array($0.keys) }
  }

  /// Delivers `entry`'s current plan synchronously, then marks it presented best-effort.
  private static func deliverNow(_ entry: Pending) {
    let plan = entry.session.currentPlan()
    entry.deliver(plan)
    let session = entry.session
    Task {
      _ = await DeadlineRace.value(by: .now + expiryMarkingBound) { await session.markPresented(plan) }
    }
  }
}
