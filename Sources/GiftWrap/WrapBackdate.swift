/// How far a gift wrap's `created_at` is set back from now: random in 0…2 days (NIP-59's
/// advice, so a relay cannot time the message), or a fixed amount for tests and the demo.
public struct WrapBackdate: Sendable, Hashable {
  /// The longest backdate: two days.
  public static let maxSeconds: Int64 = 172_800

  /// The fixed amount, nil for random.
  let fixedSeconds: Int64?

  /// A fresh random amount in 0…`maxSeconds` for every wrap.
  public static let random = WrapBackdate(fixedSeconds: nil)

  private init(fixedSeconds: Int64?) {
    self.fixedSeconds = fixedSeconds
  }

  /// Exactly `seconds` back; throws `invalid_backdate` outside 0…`maxSeconds`.
  public init(seconds: Int64) throws(GiftWrapError) {
    guard (0...Self.maxSeconds).contains(seconds) else {
      throw GiftWrapError(
        code: .invalidBackdate, field: "backdate",
        message: "the backdate is \(seconds) seconds, not 0 to \(Self.maxSeconds)")
    }
    self.init(fixedSeconds: seconds)
  }

  /// The seconds to set back one event: the fixed amount, or a fresh random one.
  func seconds() -> Int64 {
    fixedSeconds ?? Self.randomSeconds()
  }

  /// A uniformly random amount in 0…`maxSeconds` from the system's secure generator.
  static func randomSeconds() -> Int64 {
    var generator = SystemRandomNumberGenerator()
    return Int64.random(in: 0...maxSeconds, using: &generator)
  }
}
