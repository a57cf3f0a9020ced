import Dispatch
import EnrichmentCache
import Foundation
import NostrEvent
import Testing

@testable import NotificationResolver

/// A wake registers its account while the app may be removing it: registration must be one
/// atomic step, so a removal is never undone by a wake that checked a moment before it.
@Suite struct AccountRegistrationRaceTests {
  @Test(.timeLimit(.minutes(1)))
  func neverResurrectsAnAccountRemovedWhileAWakeRegistersIt() throws {
    let folder = TemporaryFolder()
    let path = folder.path + "/cache.sqlite"
    let app = try EnrichmentCache(path: path, busyTimeout: .seconds(5), clock: { RelayScenario.now })
    let extensionCache = try EnrichmentCache(
      path: path, busyTimeout: .seconds(5), clock: { RelayScenario.now })
    let store = CacheStore(extensionCache)
    var resurrected = 0
    var refused = 0
    for round in 0..<500 {
      let account = SecretKey.generate().publicKeyHex
      try app.addAccount(account, now: RelayScenario.now)
      let registration = RegistrationResult()
      DispatchQueue.concurrentPerform(iterations: 2) { index in
        registration.arrive()
        if (index + round) % 2 == 0 {
          _ = try? app.removeAccount(account, now: RelayScenario.now)
        } else {
          registration.value = store.registerAccount(account)
        }
      }
      if try !app.isAccountRemoved(account) { resurrected += 1 }
      if registration.value == false { refused += 1 }
    }
    #expect(resurrected == 0)
    // Some wakes ran after the removal and were refused: the race really was run both ways.
    #expect(refused > 0)
  }
}

/// One wake's registration answer, written by one thread and read after the join.
///
/// `@unchecked Sendable`: `value` is written by one thread before the join and read after it;
/// `arrived` is read and written only under `lock`.
private final class RegistrationResult: @unchecked Sendable {
  var value: Bool?
  private let lock = NSLock()
  private var arrived = 0

  /// Spins until both threads have arrived, so the two calls start as close together as possible.
  func arrive() {
    lock.lock()
    arrived += 1
    lock.unlock()
    while true {
      lock.lock()
      let both = arrived >= 2
      lock.unlock()
      if both { return }
    }
  }
}
