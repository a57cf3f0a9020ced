import Foundation
import NostrPushCore
import _NostrSQLite

/// The group commit of ``SQLitePushGatewayStore``: calls that arrive while a transaction is being
/// committed run together in the next one, each inside its own `SAVEPOINT`, and one `COMMIT` (one
/// fsync) makes them all durable before any of them is answered.
///
/// One drainer at a time takes up to `batchLimit` queued calls, runs them in order in one
/// `BEGIN IMMEDIATE` transaction, commits, and only then resumes their callers. A call that throws
/// is rolled back to its savepoint, so its neighbours' effects (their NIP-98 burns included) stand
/// and it alone reports its error; a call that returns (a refusal too) keeps its effects, as it
/// did in a transaction of its own. When the transaction itself fails (`BEGIN`, a savepoint, the
/// `COMMIT`, or SQLite abandoning it on an error such as a full disk), every call already run in
/// it is undone and answered with that error, and the calls not yet run go back to the queue's
/// head for the next transaction. The drainer runs off the cooperative pool on its own dispatch
/// queue, since `BEGIN IMMEDIATE` may wait out another connection's lock for the busy timeout.
final class SQLiteGroupCommit: Sendable {
  typealias Connection = SQLiteConnection<PushGatewayError>

  /// The most calls one transaction holds.
  static let defaultBatchLimit = 64

  private struct State {
    var queue: [any GroupedCall] = []
    var draining = false
    var received = 0
    var commits = 0
    var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let connection: Locked<Connection>
  private let state = Locked(State())
  private let drainer = DispatchQueue(label: "PushGateway.SQLiteGroupCommit")
  private let batchLimit: Int

  /// Commits through `connection` (shared with the store's synchronous readers), at most
  /// `batchLimit` calls (at least 1) a transaction.
  init(_ connection: Locked<Connection>, batchLimit: Int = defaultBatchLimit) {
    self.connection = connection
    self.batchLimit = max(1, batchLimit)
  }

  /// Runs `body` in the next transaction and returns its value (or error) once that transaction
  /// is committed.
  func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws(PushGatewayError) -> T)
    async throws(PushGatewayError) -> T
  {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<T, PushGatewayError>, Never>) in
      enqueue(Call(body: body, continuation: continuation))
    }
    return try result.get()
  }

  /// How many transactions have committed, for the test that proves calls share them.
  var commits: Int { state.withLock { $0.commits } }

  /// Returns once `count` calls have been received (queued), for tests that build a batch.
  func received(atLeast count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state in
        if state.received >= count { return true }
        state.watchers.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  private func enqueue(_ call: any GroupedCall) {
    let (start, ready) = state.withLock { state in
      state.queue.append(call)
      state.received += 1
      let received = state.received
      let ready = state.watchers.filter { $0.count <= received }.map(\.continuation)
      state.watchers.removeAll { $0.count <= received }
      let start = !state.draining
      state.draining = true
      return (start, ready)
    }
    for continuation in ready { continuation.resume() }
    if start { drainer.async { self.drain() } }
  }

  /// Commits batches until the queue is empty.
  private func drain() {
    while true {
      let batch = state.withLock { state -> [any GroupedCall] in
        guard !state.queue.isEmpty else {
          state.draining = false
          return []
        }
        let taken = Array(state.queue.prefix(batchLimit))
        state.queue.removeFirst(taken.count)
        return taken
      }
      guard !batch.isEmpty else { return }
      let outcome = connection.withLock { Self.commit(batch, on: $0) }
      state.withLock { state in
        state.queue.insert(contentsOf: outcome.unrun, at: 0)
        if outcome.committed { state.commits += 1 }
      }
      for call in outcome.finished { call.answer() }
    }
  }

  /// Runs `batch` in one transaction: the calls to answer, whether it committed, and the calls
  /// it did not reach.
  private static func commit(_ batch: [any GroupedCall], on connection: Connection) -> (
    finished: [any GroupedCall], committed: Bool, unrun: [any GroupedCall]
  ) {
    var run: [any GroupedCall] = []
    func abandon(_ error: PushGatewayError, next: Int) -> (
      finished: [any GroupedCall], committed: Bool, unrun: [any GroupedCall]
    ) {
      if connection.inTransaction { try? connection.execute("ROLLBACK") }
      // With nothing run, the failure is the transaction's own: answer everyone, so the queue
      // never spins on it.
      let answered = run.isEmpty ? batch : run
      for call in answered { call.fail(error) }
      return (answered, false, run.isEmpty ? [] : Array(batch[next...]))
    }
    do {
      try connection.execute("BEGIN IMMEDIATE")
    } catch {
      for call in batch { call.fail(error) }
      return (batch, false, [])
    }
    for (index, call) in batch.enumerated() {
      do {
        try connection.execute("SAVEPOINT grouped_call")
      } catch {
        return abandon(error, next: index)
      }
      run.append(call)
      let threw = call.perform(connection)
      guard connection.inTransaction else {
        // SQLite gave the whole transaction up: nothing run in it stands.
        return abandon(call.error ?? Self.lost, next: index + 1)
      }
      do {
        if threw { try connection.execute("ROLLBACK TO grouped_call") }
        try connection.execute("RELEASE grouped_call")
      } catch {
        return abandon(error, next: index + 1)
      }
    }
    do {
      try connection.execute("COMMIT")
    } catch {
      return abandon(error, next: batch.count)
    }
    return (run, true, [])
  }

  private static let lost = PushGatewayError(
    code: .storageUnavailable, field: "store", message: "SQLite ended the transaction")
}

/// One queued call, its value type erased.
private protocol GroupedCall: AnyObject, Sendable {
  /// Runs the call's body; true when it threw.
  func perform(_ connection: SQLiteGroupCommit.Connection) -> Bool
  /// The error the call's body threw, if it did.
  var error: PushGatewayError? { get }
  /// Replaces the call's outcome with `error` (its transaction did not commit).
  func fail(_ error: PushGatewayError)
  /// Resumes the caller with the outcome.
  func answer()
}

/// `@unchecked Sendable`: `outcome` is written by the one drainer while it holds the connection's
/// lock and read by that drainer after the transaction ends, never by two threads at once.
private final class Call<T: Sendable>: GroupedCall, @unchecked Sendable {
  private let body: @Sendable (SQLiteGroupCommit.Connection) throws(PushGatewayError) -> T
  private let continuation: CheckedContinuation<Result<T, PushGatewayError>, Never>
  private var outcome: Result<T, PushGatewayError>?

  init(
    body: @escaping @Sendable (SQLiteGroupCommit.Connection) throws(PushGatewayError) -> T,
    continuation: CheckedContinuation<Result<T, PushGatewayError>, Never>
  ) {
    self.body = body
    self.continuation = continuation
  }

  func perform(_ connection: SQLiteGroupCommit.Connection) -> Bool {
    let result = Result { () throws(PushGatewayError) -> T in try body(connection) }
    outcome = result
    if case .failure = result { return true }
    return false
  }

  var error: PushGatewayError? {
    if case .failure(let error) = outcome { return error }
    return nil
  }

  func fail(_ error: PushGatewayError) { outcome = .failure(error) }

  func answer() {
    continuation.resume(returning: outcome ?? .failure(SQLiteGroupCommit.unanswered))
  }
}

extension SQLiteGroupCommit {
  fileprivate static let unanswered = PushGatewayError(
    code: .storageUnavailable, field: "store", message: "the call was not run")
}
