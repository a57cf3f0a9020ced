import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import Testing
import _NostrPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two `nostr-push relay --config` processes on one PostgreSQL database (`"store":{"postgres":…}`)
/// following one upstream relay: both receive every event, and each event wakes once at the
/// gateway fixture.
@Suite(.timeLimit(.minutes(3))) struct RelayServiceReplicaTests {
  /// One service process: its process and admin address.
  struct Replica {
    var process: ChildProcess
    var listening: String
    var admin: String
  }

  static func start(_ config: String) async throws -> Replica {
    let (process, line) = try #require(try await NostrPushBinary.startServer(["relay", "--config", config]))
    guard let first = try? JSONReader().read(line).objectValue,
      let listening = first["listening"]?.stringValue, let admin = first["admin"]?.stringValue
    else {
      process.send(SIGKILL)
      let exit = await process.exited()
      throw ReplicaStartFailure(stderr: exit.stderrText)
    }
    return Replica(process: process, listening: listening, admin: admin)
  }

  struct ReplicaStartFailure: Error, CustomStringConvertible {
    var stderr: String
    var description: String { "the service did not start: \(stderr)" }
  }

  /// The value of the metrics line that starts with `name` at `replica`'s admin listener (0 when
  /// absent).
  static func metric(_ replica: Replica, _ name: String) async -> Int {
    let metrics = try? await LoopbackFetch.send("http://\(replica.admin)/metrics")
    let text = String(decoding: metrics?.body ?? [], as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return 0 }
    return Int(line.split(separator: " ").last ?? "") ?? 0
  }

  @Test(
    .enabled(
      if: GatewayReplicaTests.postgres != nil,
      "PostgreSQL cases need NOSTRPUSH_POSTGRES: run them with `Scripts/with-postgres -- swift test`"))
  func twoProcessesOnOneDatabaseWakeEachEventOnce() async throws {
    let base = try #require(GatewayReplicaTests.postgres)
    let database = "svc_replicas_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let admin = try PostgresConnection(connectionString: base)
    // Creating and dropping a database may take longer than a service statement's bound.
    try admin.execute("SET statement_timeout = 0; SET lock_timeout = 0")
    try admin.execute("CREATE DATABASE \(database)")
    let conninfo = base + " dbname=" + database
    defer {
      try? admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
      admin.close()
    }
    try await withGateway(GatewayFixtureConfiguration(quota: 0)) { gateway in
      try await withRelay { upstream in
        let upstreamURL =
          "ws" + RelayServiceCommandTests.base(try #require(upstream.baseURL)).dropFirst("http".count)
        let store = JSONWriter.string(.object(JSONObject(["postgres": .string(conninfo)])))
        let (folder, config) = try RelayServiceCommandTests.folder(
          upstream: upstreamURL, gateway: RelayServiceCommandTests.base(try #require(gateway.baseURL)),
          store: store)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var replicas: [Replica] = []
        do {
          replicas.append(try await Self.start(config))
          replicas.append(try await Self.start(config))
          try await exercise(replicas, gateway: gateway, upstreamURL: upstreamURL, conninfo: conninfo)
        } catch {
          Issue.record(error)
        }
        for replica in replicas { replica.process.send(SIGTERM) }
        for replica in replicas {
          let exit = await replica.process.exited()
          #expect(exit.status == 0 && !exit.killedBySignal, "\(exit.stderrText)")
        }
      }
    }
  }

  private func exercise(
    _ replicas: [Replica], gateway: GatewayFixture, upstreamURL: String, conninfo: String
  ) async throws {
    let account = RelayServiceCommandTests.account
    // The lease is enrolled at the first process only; the second learns it from the database.
    #expect(
      try await RelayServiceCommandTests.enrollMentionLease(at: replicas[0].listening, gateway: gateway)
        .accepted)
    // Both processes hold the upstream REQ before anything is published, so both receive it all.
    for replica in replicas {
      let subscribed = await Polling.eventuallyAwaiting(within: .seconds(15), every: .milliseconds(50)) {
        await Self.metric(replica, #"nostr_push_upstream_subscriptions{upstream="0"}"#) == 1
      }
      #expect(subscribed, "\(replica.listening) never subscribed upstream")
    }
    let count = 100
    let publisher = try await RelayConnection.connect(to: upstreamURL, deadline: .now + .seconds(5))
    for index in 0..<count {
      let event = try UnsignedEvent(
        pubkey: RelayServiceCommandTests.alice.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970),
        kind: 1, tags: [["p", account.publicKeyHex]], content: "mention \(index)"
      ).signed(with: RelayServiceCommandTests.alice)
      #expect(try await publisher.publish(event, deadline: .now + .seconds(5)).accepted)
    }
    await publisher.close()
    // Done when every wake row is delivered: a delivered row is never sent again, so the count
    // read then is final.
    let database = try PostgresConnection(connectionString: conninfo)
    defer { database.close() }
    func wakes(_ state: String? = nil) -> Int64 {
      let sql =
        state == nil
        ? "SELECT COUNT(*) FROM push_wake" : "SELECT COUNT(*) FROM push_wake WHERE state = 'delivered'"
      return (try? database.query(sql).rows.first?.integer(0)) ?? -1
    }
    let settled = await Polling.eventually(within: .seconds(60), every: .milliseconds(50)) {
      wakes("delivered") == Int64(count)
    }
    #expect(settled, "\(wakes("delivered")) of \(wakes()) wake rows delivered")
    #expect(wakes() == Int64(count))
    let deliveries = gateway.deliveries()
    #expect(deliveries.count == count)
    #expect(Set(deliveries.map(\.requestID)).count == count)
    // Each process received every event from the upstream (a replayed one counts again as a
    // duplicate); exactly one process stored each (`accepted`), and the table holds each once.
    var accepted = 0
    for replica in replicas {
      let received = await Polling.eventuallyAwaiting(within: .seconds(30), every: .milliseconds(50)) {
        let stored = await Self.metric(
          replica, #"nostr_push_events_total{source="upstream",result="accepted"}"#)
        let found = await Self.metric(
          replica, #"nostr_push_events_total{source="upstream",result="duplicate"}"#)
        return stored + found >= count
      }
      #expect(received, "\(replica.listening) did not receive every event")
      accepted += await Self.metric(replica, #"nostr_push_events_total{source="upstream",result="accepted"}"#)
    }
    #expect(accepted == count)
    let stored = try database.query("SELECT COUNT(*) FROM service_event").rows.first?.integer(0)
    #expect(stored == Int64(count))
  }
}
