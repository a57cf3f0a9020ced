import Foundation
import NostrCurlHTTP
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import PushGateway
import Testing

/// One `PushGatewayHelper` process: a gateway on the test's PostgreSQL database behind
/// `https://push.example.org`, sending to the stand-in.
private final class GatewayProcess: Sendable {
  static let publicURL = "https://push.example.org"
  let child: ChildProcess
  let port: UInt16

  private init(child: ChildProcess, port: UInt16) {
    self.child = child
    self.port = port
  }

  static func start(
    connectionString: String, keyHex: String, standIn: APNsStandIn, inFlightSeconds: Int64
  ) async throws -> GatewayProcess {
    guard let helper = PackageRoot.builtExecutable("PushGatewayHelper") else {
      throw HarnessFailure(message: "PushGatewayHelper is not built; run `swift build` first")
    }
    let child = try await ChildProcess.start(
      helper,
      [
        connectionString, keyHex, standIn.origin, standIn.caFile, standIn.clientCertificateFile,
        standIn.clientKeyFile, String(inFlightSeconds),
      ])
    let line = String(decoding: await child.firstLine(), as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines)
    guard line.hasPrefix("port "), let port = UInt16(line.dropFirst(5)) else {
      child.send(SIGKILL)
      let exit = await child.exited()
      throw HarnessFailure(message: "the helper did not start: \(line) \(exit.stderrText)")
    }
    return GatewayProcess(child: child, port: port)
  }

  /// POSTs `body` to `path`, NIP-98 signed by `key` for the public origin, on the system clock.
  func post(_ path: String, _ body: String, key: SecretKey, http: CurlHTTPClient) async throws
    -> GatewayAnswerSeen
  {
    let bytes = Array(body.utf8)
    let header = try NIP98.authorizationHeader(
      url: Self.publicURL + path, method: "POST", body: bytes, key: key, now: UnixClock.system.now())
    let response = try await http.send(
      HTTPTransportRequest(
        url: "http://127.0.0.1:\(port)" + path, method: "POST", headers: ["Authorization": header],
        body: bytes,
        maxResponseBytes: 16 * 1024),
      deadline: .now + .seconds(30))
    return GatewayAnswerSeen(status: response.status, body: String(decoding: response.body, as: UTF8.self))
  }

  func kill() async {
    child.send(SIGKILL)
    _ = await child.exited()
  }
}

/// Two gateway processes on one PostgreSQL database, against the stand-in over TLS + HTTP/2.
@Suite(
  .enabled(
    if: GatewayStoreBackend.postgresBase != nil,
    "PostgreSQL cases need NOSTRPUSH_POSTGRES: run them with `Scripts/with-postgres -- swift test`"),
  .timeLimit(.minutes(3)))
struct GatewayMultiProcessTests {
  /// Runs `body` with the stand-in, two helpers on a fresh database, a client and a relay key
  /// with grants for `devices` tokens (registered through the first process, delegated through
  /// the second).
  private func withTwoGateways(
    devices: Int, inFlightSeconds: Int64,
    _ body: ([GatewayProcess], CurlHTTPClient, SecretKey, [(grant: String, token: String)], APNsStandIn)
      async throws
      -> Void
  ) async throws {
    try await withAPNsStandIn { standIn in
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "gw-mp-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let location = try GatewayStoreBackend.postgres.makeLocation(in: directory)
      defer {
        location.cleanup()
        try? FileManager.default.removeItem(at: directory)
      }
      _ = try location.open()  // migrated once, before the processes race
      let keyHex = PushGatewaySealingKey.generateKeyFileText()
      var processes: [GatewayProcess] = []
      for _ in 0..<2 {
        processes.append(
          try await GatewayProcess.start(
            connectionString: location.postgres ?? "", keyHex: keyHex, standIn: standIn,
            inFlightSeconds: inFlightSeconds))
      }
      let http = try CurlHTTPClient()
      do {
        let relay = SecretKey.generate()
        var grants: [(grant: String, token: String)] = []
        let now = UnixClock.system.now()
        for index in 0..<devices {
          let owner = SecretKey.generate()
          let token = testToken(1000 + index)
          let registered = try await processes[0].post(
            "/v1/installations",
            #"{"v":1,"app_profile":"chat","endpoint":"\#(token)","expires_at":\#(now + 86_400)}"#, key: owner,
            http: http)
          let handle = try #require(
            registered.object?["installation_handle"]?.stringValue, "\(registered.body)")
          let delegated = try await processes[1].post(
            "/v1/delegations",
            #"{"v":1,"installation_handle":"\#(handle)","relay_pubkey":"\#(relay.publicKeyHex)","generation":1,"expires_at":\#(now + 3600)}"#,
            key: owner, http: http)
          grants.append(
            (try #require(delegated.object?["endpoint_grant"]?.stringValue, "\(delegated.body)"), token))
        }
        try await body(processes, http, relay, grants, standIn)
      } catch {
        for process in processes { await process.kill() }
        await http.shutdown()
        throw error
      }
      for process in processes { await process.kill() }
      await http.shutdown()
    }
  }

  private static func delivery(_ grant: String, _ requestID: String) -> String {
    #"{"v":1,"endpoint_grant":"\#(grant)","request_id":"\#(requestID)","expires_at":\#(UnixClock.system.now() + 600)}"#
  }

  @Test func twoProcessesDeliver1000WakesEachRequestIDToTheStandInOnce() async throws {
    try await withTwoGateways(devices: 10, inFlightSeconds: 30) { processes, http, relay, grants, standIn in
      let ids = (0..<1000).map { _ in freshRequestID() }
      var statuses: [Int: Int] = [:]
      for batch in stride(from: 0, to: ids.count, by: 16) {
        let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
          for index in batch..<min(batch + 16, ids.count) {
            let grant = grants[index % grants.count].grant
            group.addTask {
              // Every tenth request_id then goes to the other process too, which answers it from
              // the shared ledger without APNs.
              let first = try await processes[index % 2].post(
                PushGateway.deliveryPath, Self.delivery(grant, ids[index]), key: relay, http: http)
              if index % 10 == 0 {
                let second = try await processes[(index + 1) % 2].post(
                  PushGateway.deliveryPath, Self.delivery(grant, ids[index]), key: relay, http: http)
                #expect(second.status == 200, "\(second.body)")
              }
              return (index, first.status)
            }
          }
          var answers: [(Int, Int)] = []
          for try await answer in group { answers.append(answer) }
          return answers
        }
        for (index, status) in answers { statuses[index] = status }
      }
      #expect(statuses.values.filter { $0 != 200 }.isEmpty)
      let recorded = try await standIn.requests()
      let sent = recorded.compactMap { $0.header("apns-id") }
      #expect(sent.count == 1000)
      #expect(Set(sent) == Set(ids))
    }
  }

  @Test func aKilledProcessLosesNothingAndTheRetryIsAnsweredOnce() async throws {
    try await withTwoGateways(devices: 1, inFlightSeconds: 2) { processes, http, relay, grants, standIn in
      let (grant, token) = grants[0]
      try await standIn.script(#"{"\#(token)":{"stall":true,"times":1}}"#)
      let requestID = freshRequestID()
      let stalled = Task {
        try? await processes[0].post(
          PushGateway.deliveryPath, Self.delivery(grant, requestID), key: relay, http: http)
      }
      let reached = await Polling.eventuallyAwaiting(within: .seconds(20), every: .milliseconds(20)) {
        ((try? await standIn.requests()) ?? []).contains { $0.header("apns-id") == requestID }
      }
      #expect(reached)
      await processes[0].kill()
      _ = await stalled.value
      // The relay's retry goes to the other process: told to wait while the dead one's hold
      // lasts, then sent and accepted.
      var answers: [Int] = []
      let delivered = await Polling.eventuallyAwaiting(within: .seconds(20), every: .milliseconds(200)) {
        let answer = try? await processes[1].post(
          PushGateway.deliveryPath, Self.delivery(grant, requestID), key: relay, http: http)
        answers.append(answer?.status ?? 0)
        return answer?.status == 200
      }
      #expect(delivered, "answers \(answers)")
      #expect(answers.dropLast().allSatisfy { $0 == 503 }, "answers \(answers)")
      // Further retries are answered from the ledger: APNs saw the request_id from the dead
      // process (never answered) and once more from the living one.
      let again = try await processes[1].post(
        PushGateway.deliveryPath, Self.delivery(grant, requestID), key: relay, http: http)
      #expect(again.status == 200)
      #expect(again.body == #"{"status":"accepted"}"#)
      let sent = try await standIn.requests().filter { $0.header("apns-id") == requestID }
      #expect(sent.count == 2)
    }
  }
}
