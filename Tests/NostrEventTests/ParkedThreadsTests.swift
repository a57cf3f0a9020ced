import Foundation
import NostrPushCore
import Testing

@testable import NostrEvent

/// `ParkedThreads` creates a thread only when no parked one is free, so a process that maps many
/// batches creates its workers once.
@Suite struct ParkedThreadsTests {
  @Test func reusesItsThreadsFromOneCallToTheNext() {
    let pool = ParkedThreads()
    let identities = Locked<[Set<ObjectIdentifier>]>([])
    for _ in 0..<20 {
      let call = Locked<Set<ObjectIdentifier>>([])
      pool.start(3) { _ in call.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) } }.wait()
      identities.withLock { $0.append(call.current) }
    }
    let calls = identities.current
    // Three workers at once are three threads, and every later call runs on the same three.
    #expect(calls.allSatisfy { $0.count == 3 })
    #expect(Set(calls.flatMap { $0 }).count == 3)
  }

  @Test func startsMoreThreadsWhenTheParkedOnesAreBusy() {
    let pool = ParkedThreads()
    let release = DispatchSemaphore(value: 0)
    let identities = Locked<Set<ObjectIdentifier>>([])
    let record: @Sendable (Int) -> Void = { _ in
      identities.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) }
      release.wait()
    }
    let first = pool.start(2, record)
    let second = pool.start(2, record)
    for _ in 0..<4 { release.signal() }
    first.wait()
    second.wait()
    #expect(identities.current.count == 4)
  }
}
