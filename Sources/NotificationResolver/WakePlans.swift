import NostrPushCore

/// The plans one wake hands out: one per outcome, made once, so that the final plan and the
/// expiry path's plan of the same outcome are the same value with the same attachment files.
final class WakePlans: Sendable {
  private let composer: PlanComposer
  private let progress: WakeProgress
  private let plans = Locked<[NotificationOutcome: NotificationPlan]>([:])

  init(composer: PlanComposer, progress: WakeProgress) {
    self.composer = composer
    self.progress = progress
  }

  /// The plan presenting `outcome`, made the first time it is asked for.
  func plan(for outcome: NotificationOutcome) -> NotificationPlan {
    plans.withLock { plans in
      if let plan = plans[outcome] { return plan }
      let covered = outcome.resolvedEventID.flatMap(progress.covered(showing:))
      let plan = composer.plan(outcome, shown: covered?.shown, account: covered?.account)
      plans[outcome] = plan
      return plan
    }
  }
}

extension NotificationOutcome {
  /// The shown message's id, for a resolved outcome.
  fileprivate var resolvedEventID: String? {
    if case .resolved(let message) = self { return message.target.eventID }
    return nil
  }
}
