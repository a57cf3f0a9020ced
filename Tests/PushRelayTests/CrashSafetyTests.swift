import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushLease
import PushRelay
import Testing

/// The `PushRelayCrashHelper` executable built next to the test bundle.
func crashHelperURL() throws -> URL {
  guard let built = PackageRoot.builtExecutable("PushRelayCrashHelper") else {
    throw PushRelayError(
      code: .invalidConfiguration, message: "PushRelayCrashHelper is not built; run `swift build` first")
  }
  return built
}

/// A relay process killed between claim and answer, restarted on the same state file.
@Suite(.timeLimit(.minutes(1))) struct CrashSafetyTests {
  /// The channel members the helper's roster answers with.
  static let members = [Demo.account.publicKeyHex, Demo.alice.publicKeyHex].joined(separator: ",")

  @Test func deliversExactlyOnceMoreWithTheSameRequestIDAfterSIGKILL() async throws {
    let path = Demo.temporaryPath("crash")
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    try await withGateway(GatewayFixtureConfiguration(quota: 0, now: Demo.now)) { gateway in
      let base = try #require(gateway.baseURL).absoluteString
      let requestID: String
      do {
        let database = try PushStateDatabase(path: path)
        let store = SQLiteLeaseStore(database: database)
        let validator = try LeaseValidator(descriptor: Demo.descriptor, pushKeys: [Demo.keyID: Demo.relayKey])
        let roster = TestRoster(channels: [
          Demo.channel: [Demo.account.publicKeyHex, Demo.alice.publicKeyHex]
        ])
        let relay = try PushRelay(
          validator: validator, store: store, outbox: SQLiteWakeOutbox(database: database),
          descriptor: Demo.descriptor, roster: roster, gateway: nil, clock: .fixed(Demo.now))
        let grant = try gateway.issueGrant(relayPubkey: Demo.relayKey.publicKeyHex, deviceToken: "c0ffee")
          .grant
        let lease = Demo.lease(endpoint: grant, generation: 1, d: .generate())
        #expect(try relay.ingestLease(try #require(VerifiedEvent(lease)), identity: lease.pubkey).accepted)
        let mention = Demo.event(tags: [["h", Demo.channel], ["p", Demo.account.publicKeyHex]])
        try relay.didStore(mention, receivedAt: Demo.now)
        requestID = try #require(try SQLiteWakeOutbox(database: database).wakes().first?.requestID)
      }
      // The first answer is held 30 s, so the helper is inside the exchange when it is killed.
      gateway.script([GatewayScriptEntry(status: 503, delayMilliseconds: 30_000)])
      let helper = try crashHelperURL()
      let first = try await ChildProcess.start(
        helper,
        [
          path, base, String(Demo.now * 1000), Hex.encode(try relayKeyBytes()), Demo.keyID, "10000",
          Self.members,
        ])
      #expect(await Polling.eventually(within: .seconds(20)) { !gateway.requests().isEmpty })
      #expect(gateway.requests().map(\.requestID) == [requestID])
      first.send(SIGKILL)
      let killed = await first.exited()
      #expect(killed.killedBySignal, "the helper ended by itself: \(killed.stderrText)")
      let afterKill = try SQLiteWakeOutbox(database: try PushStateDatabase(path: path)).wakes()
      #expect(afterKill.map(\.state) == [.sending])
      #expect(afterKill.map(\.attempts) == [1])

      // Restarted once the fence has passed: one more attempt, same request_id, then nothing.
      gateway.advanceClock(by: 30)
      let restartedAt = (Demo.now + 30) * 1000
      for (index, run) in [0, 1].enumerated() {
        let exit = try await ChildProcess.run(
          helper,
          [
            path, base, String(restartedAt + Int64(run)), Hex.encode(try relayKeyBytes()), Demo.keyID, "2000",
            Self.members,
          ])
        #expect(exit.status == 0, "\(exit.stderrText)")
        #expect(exit.stdoutText == (index == 0 ? "\(requestID) 2 true\n" : ""))
      }
      #expect(gateway.deliveries().map(\.requestID) == [requestID])
      #expect(gateway.requests().map(\.requestID) == [requestID, requestID])
      let database = try PushStateDatabase(path: path)
      let rows = try SQLiteWakeOutbox(database: database).wakes()
      #expect(rows.map(\.state) == [.delivered])
      #expect(rows.map(\.attempts) == [2])
      #expect(try database.integrityCheck() == ["ok"])
    }
  }

  private func relayKeyBytes() throws -> [UInt8] {
    try #require(Hex.decode("8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098"))
  }
}
