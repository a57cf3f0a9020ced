import NostrPushCore

/// One wake being resolved: the session an extension holds between `didReceive` and handing the
/// content to iOS.
///
/// Start it with ``NotificationResolver/start(deadline:)``; await ``plan()`` for the final outcome;
/// on `serviceExtensionTimeWillExpire` take ``currentPlan()`` instead. Whatever is handed to iOS
/// is first passed to ``markPresented(_:)`` — before the content handler, because iOS may end the
/// extension as soon as it has the content. A message claimed but never marked (the extension was
/// killed) is claimed again by a wake after the claim expires, so it is never lost.
public final class WakeResolution: Sendable {
  private let progress: WakeProgress
  private let plans: WakePlans
  private let task: Task<Resolution, Never>
  private let store: (any EnrichmentStore)?
  private let clock: UnixClock

  init(
    progress: WakeProgress, plans: WakePlans, task: Task<Resolution, Never>, store: (any EnrichmentStore)?,
    clock: UnixClock
  ) {
    self.progress = progress
    self.plans = plans
    self.task = task
    self.store = store
    self.clock = clock
  }

  /// The final plan (``Resolution/plan``), by the deadline the session was started with;
  /// cancelling the caller ends the wake at once, as its deadline would.
  public func plan() async -> Resolution {
    let task = self.task
    return await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
  }

  /// The best plan known now, for the expiry path: the final one when it is there; once a
  /// message is claimed, its plain content (compact npub title, preview body, routing); before
  /// that the `timeout` fallback — and then no later claim of this wake commits.
  public func currentPlan() -> NotificationPlan {
    plans.plan(for: progress.current())
  }

  /// Marks the messages `plan` covers presented in the cache (the claim's second phase),
  /// bounded by the cache's busy timeout; true when they are recorded (or there is nothing to
  /// record: a fallback, nothing new, no cache). False means the cache could not answer: the
  /// messages' claims expire and a later wake presents them again.
  @discardableResult
  public func markPresented(_ plan: NotificationPlan) async -> Bool {
    guard case .resolved(let notification) = plan.outcome, let store,
      let covered = progress.covered(showing: notification.target.eventID), covered.isRecorded
    else { return true }
    let now = clock.now()
    return await BlockingWork.run { store.markPresented(covered.ids, now: now) }
  }
}
