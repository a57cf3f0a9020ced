import NostrEvent
import NostrPushCore

/// The messages one wake claimed: the one it shows (the newest) and every one its plan covers.
struct CoveredMessages: Sendable, Hashable {
  /// The message the notification shows.
  var shown: WakeMessage
  /// The account the shown message belongs to: its index in the wake's accounts.
  var account: Int
  /// That account's pubkey (64 lowercase hex).
  var accountKey: String
  /// The ids of every message the plan covers, the shown one first; all are marked presented
  /// together.
  var ids: [String]
  /// Whether the claim is recorded in the cache (false: taken without the once-guarantee, with no
  /// cache or a cache that could not answer), so there is a claim to mark presented.
  var isRecorded: Bool

  /// The account's zapper keys, which judge a shown zap receipt.
  var zapperPubkeys: Set<String> = []

  /// The eligible messages covered besides the shown one (`more_count`).
  var moreCount: Int { ids.count - 1 }

  /// The shown message read as a social notification, when it is one.
  var socialReading: SocialReading? {
    guard case .channel(let event) = shown else { return nil }
    return SocialReading(event, account: accountKey, zapperPubkeys: zapperPubkeys)
  }
}

/// What one wake knows so far, shared by the resolving task, the expiry path
/// (``WakeResolution/currentPlan()``) and the outer deadline.
///
/// It decides, once, between the wake's claim and its end: the claim asks ``admit(_:plain:)``
/// with the cache's write lock held, right before it commits; the expiry path and the deadline
/// call ``current()``. Whichever comes first wins: a claim after the end is rolled back (the next
/// wake presents the message), and a claim before it is presented — from the message alone when
/// the enrichment was cut short — so a claimed message is never dropped for the fallback.
final class WakeProgress: Sendable {
  private enum Gate {
    case open
    case admitted(CoveredMessages)
    case closed
  }

  private struct State {
    var gate = Gate.open
    /// The plain content of the admitted message (compact npub title, preview body, routing).
    var plain: NotificationOutcome?
    /// The final outcome, once the wake composed it.
    var final: NotificationOutcome?
    /// The moment the message was chosen (the start of the enrichment budget).
    var chosenAt: ContinuousClock.Instant?
  }

  private let state = Locked(State())

  /// Records `covered` as the wake's messages, with `plain` their content before enrichment,
  /// unless the wake already ended (or other messages were admitted); true when they are the
  /// wake's.
  func admit(_ covered: CoveredMessages, plain: NotificationOutcome) -> Bool {
    state.withLock { state in
      switch state.gate {
      case .open:
        state.gate = .admitted(covered)
        state.plain = plain
        state.chosenAt = .now
        return true
      case .admitted(let earlier): return earlier == covered
      case .closed: return false
      }
    }
  }

  /// Records the wake's final outcome.
  func finish(_ outcome: NotificationOutcome) {
    state.withLock { $0.final = $0.final ?? outcome }
  }

  /// The best outcome known now: the final one; else the admitted message's plain content; else
  /// the `timeout` fallback, and then the gate closes so that no later claim commits.
  func current() -> NotificationOutcome {
    state.withLock { state in
      if let final = state.final { return final }
      if let plain = state.plain { return plain }
      state.gate = .closed
      return .fallback(.timeout)
    }
  }

  /// The covered messages whose shown message is `eventID`, when they were admitted.
  func covered(showing eventID: String) -> CoveredMessages? {
    state.withLock { state in
      guard case .admitted(let covered) = state.gate, covered.shown.id == eventID else { return nil }
      return covered
    }
  }

  /// When the message was chosen; nil before.
  var chosenAt: ContinuousClock.Instant? { state.withLock { $0.chosenAt } }
}
