import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrWebSocket
import PushRelayServer
import Testing
import _NostrSQLite

/// The spec's "serving safely" checks that one process can show, each against the production
/// host (`PushService` over `NostrHTTPServer`) on real loopback sockets and SQLite files. Clients
/// that must be different addresses bind 127.0.0.2, 127.0.0.3 (all of 127/8 is loopback).
enum ServingSafely {
  /// The NIP-42 `AUTH` message answering `challenge` as `key` for the listener on `port`.
  static func auth(_ challenge: String, key: SecretKey, port: UInt16) throws -> String {
    let event = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970), kind: 22242,
      tags: [["relay", "ws://127.0.0.1:\(port)"], ["challenge", challenge]], content: ""
    ).signed(with: key)
    return JSONWriter.string(.array([.string("AUTH"), event.jsonValue]))
  }

  /// The parsed relay message `text`: its elements.
  static func elements(_ text: String) -> [JSONValue] {
    (try? JSONReader().read(Array(text.utf8)))?.arrayValue ?? []
  }

  /// A WebSocket to the service on `port` from `source`, upgraded, its `AUTH` challenge read,
  /// and authenticated as `key` when given; nil when the connection or upgrade was refused.
  static func open(
    from source: String, port: UInt16, as key: SecretKey? = nil, readTimeout: Duration = .seconds(10)
  )
    async -> SourceBoundClient?
  {
    await BlockingWork.run { () -> SourceBoundClient? in
      guard let client = SourceBoundClient(from: source, port: port, readTimeout: readTimeout),
        client.upgrade(),
        case .text(let first) = client.receive(), elements(first).first?.stringValue == "AUTH",
        let challenge = elements(first).last?.stringValue
      else { return nil }
      if let key {
        guard let message = try? auth(challenge, key: key, port: port), client.sendText(message),
          case .text(let ok) = client.receive(), elements(ok).first?.stringValue == "OK",
          elements(ok)[2].boolValue == true
        else { return nil }
      }
      return client
    }
  }

  /// Sends a `REQ` for `key`'s leases (`subscription`) and reads until its `EOSE` or `CLOSED`.
  static func request(_ client: SourceBoundClient, subscription: String = "s", author: String)
    async -> [SourceBoundClient.Received]
  {
    await BlockingWork.run {
      let filter = #"{"kinds":[30350],"authors":["\#(author)"]}"#
      client.sendText(#"["REQ","\#(subscription)",\#(filter)]"#)
      return client.texts { text in
        let type = elements(text).first?.stringValue
        return type == "EOSE" || type == "CLOSED"
      }
    }
  }

  /// The `CLOSED` reason in `received`'s last message, or "" when it is not a `CLOSED`.
  static func closedReason(_ received: [SourceBoundClient.Received]) -> String {
    guard case .text(let text)? = received.last, elements(text).first?.stringValue == "CLOSED" else {
      return ""
    }
    return elements(text).last?.stringValue ?? ""
  }

  /// How long `GET /` (NIP-11) takes from `source`, connect to status line, with the status.
  static func timedInformation(from source: String, port: UInt16) async -> (Duration, String) {
    await BlockingWork.run {
      let started = ContinuousClock.now
      let status = SourceBoundClient(from: source, port: port)?.informationStatus() ?? "connect failed"
      return (ContinuousClock.now - started, status)
    }
  }

  /// A duration in milliseconds with two decimals, for printed figures.
  static func milliseconds(_ duration: Duration) -> String {
    String(
      format: "%.2f",
      Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
  }
}

/// A `REQ` of 100 filters is refused before any read, and a bystander's NIP-11 answers within the
/// spec's 50 ms while ten clients send them.
@Suite struct PushServiceFilterBoundTests {
  @Test func aHundredFilterRequestIsRefusedAndABystanderAnswersWithin50Milliseconds() async throws {
    let world = try await ServiceWorld()
    do {
      let filters = (0..<100).map {
        #"{"kinds":[30350],"authors":["\#(Keys.alice.publicKeyHex)"],"limit":\#($0 + 1)}"#
      }
      let request = #"["REQ","big",\#(filters.joined(separator: ","))]"#
      let port = world.service.port
      let bystanderDone = Locked(false)
      let refusals = Locked<[String]>([])
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<10 {
          group.addTask {
            let client = try #require(await ServingSafely.open(from: "127.0.0.1", port: port, as: Keys.alice))
            // Up to 100 REQs each (the per-connection rate allows 120 messages a minute), until
            // the bystander is done.
            for _ in 0..<100 where !bystanderDone.current {
              let answer = await BlockingWork.run { () -> [SourceBoundClient.Received] in
                client.sendText(request)
                return client.texts { _ in true }
              }
              refusals.withLock { $0.append(ServingSafely.closedReason(answer)) }
            }
          }
        }
        var durations: [Duration] = []
        for _ in 0..<20 {
          let (duration, status) = await ServingSafely.timedInformation(from: "127.0.0.2", port: port)
          #expect(status == "HTTP/1.1 200 OK")
          durations.append(duration)
        }
        bystanderDone.withLock { $0 = true }
        try await group.waitForAll()
        let sorted = durations.sorted()
        print(
          "NIP-11 beside ten 100-filter REQ floods (ms): p50 \(ServingSafely.milliseconds(sorted[10])), "
            + "p90 \(ServingSafely.milliseconds(sorted[18])), max \(ServingSafely.milliseconds(sorted[19])), "
            + "REQs refused meanwhile: \(refusals.current.count)")
        #expect(sorted.last! <= .milliseconds(50), "\(sorted.map(ServingSafely.milliseconds))")
      }
      #expect(!refusals.current.isEmpty)
      #expect(
        refusals.current.allSatisfy { $0 == "invalid: REQ takes 1 to 10 filters" }, "\(Set(refusals.current))"
      )
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// WebSocket slots are shared per client address: one address pinging on every connection it can
/// open cannot take the slots another address needs.
@Suite struct PushServiceSlotShareTests {
  @Test func sixtyThreePingingConnectionsFromOneAddressLeaveSlotsForAnother() async throws {
    var limits = PushServiceLimits()
    limits.maxConnections = 64  // the fixture host's 64 WebSocket slots
    let world = try await ServiceWorld(limits: limits)
    var held: [SourceBoundClient] = []
    do {
      let port = world.service.port
      var refused = 0
      for _ in 0..<63 {
        if let client = await ServingSafely.open(from: "127.0.0.1", port: port, readTimeout: .seconds(5)) {
          held.append(client)
        } else {
          refused += 1
        }
      }
      #expect(held.count == PushServiceLimits.defaultMaxConnectionsPerIP)
      #expect(refused == 63 - PushServiceLimits.defaultMaxConnectionsPerIP)
      // Every held connection pings and is answered: they hold their slots.
      let pongs = await BlockingWork.run { [held] in held.filter { $0.ping() && $0.receive() == .pong }.count
      }
      #expect(pongs == held.count)
      // Another address gets a WebSocket and is answered, and its NIP-11 too.
      let other = try #require(await ServingSafely.open(from: "127.0.0.2", port: port, as: Keys.account))
      let answer = await ServingSafely.request(other, author: Keys.account.publicKeyHex)
      guard case .text(let last)? = answer.last else {
        Issue.record("no answer: \(answer)")
        throw CancellationError()
      }
      #expect(ServingSafely.elements(last).first?.stringValue == "EOSE")
      #expect(await ServingSafely.timedInformation(from: "127.0.0.3", port: port).1 == "HTTP/1.1 200 OK")
    } catch {
      held = []
      await world.stop()
      throw error
    }
    held = []
    await world.stop()
  }
}

/// An idle WebSocket is closed after the idle bound, and pings do not extend it.
@Suite struct PushServiceIdleBoundTests {
  @Test func aConnectionThatOnlyPingsIsClosedAfterTheIdleBound() async throws {
    var limits = PushServiceLimits()
    limits.idleTimeout = .seconds(1)
    let world = try await ServiceWorld(limits: limits)
    do {
      // Taken before the connection opens, so the elapsed time is at least the session's.
      let started = ContinuousClock.now
      let client = try #require(
        await ServingSafely.open(from: "127.0.0.1", port: world.service.port, readTimeout: .milliseconds(100))
      )
      // Ping every 100 ms (a read that times out is the pause) until the server closes, at most 10 s.
      let (pongs, notice, close) = await BlockingWork.run { () -> (Int, String, UInt16?) in
        var pongs = 0
        var notice = ""
        while ContinuousClock.now - started < .seconds(10) {
          client.ping()
          switch client.receive() {
          case .pong: pongs += 1
          case .text(let text): notice = ServingSafely.elements(text).last?.stringValue ?? text
          case .close(let code): return (pongs, notice, code)
          case .ended: return (pongs, notice, nil)
          case .timedOut: continue
          }
        }
        return (pongs, notice, nil)
      }
      let elapsed = ContinuousClock.now - started
      #expect(pongs >= 5, "pings were answered while the connection lived")
      #expect(notice == "idle: no message for 1 s")
      #expect(close == 1000)
      #expect(elapsed >= .seconds(1) && elapsed < .seconds(5), "\(elapsed)")
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// Queries are bounded per connection (messages a minute) and per client address (`REQ`s and
/// `POST /query` together, over all its connections).
@Suite struct PushServiceQueryRateTests {
  @Test func aConnectionOverItsMessageRateIsToldAndClosed() async throws {
    var limits = PushServiceLimits()
    limits.maxMessagesPerMinute = 5
    let world = try await ServiceWorld(limits: limits)
    do {
      let client = try #require(await ServingSafely.open(from: "127.0.0.1", port: world.service.port))
      for _ in 0..<5 {
        let answer = await ServingSafely.request(client, author: Keys.alice.publicKeyHex)
        #expect(ServingSafely.closedReason(answer) == "auth-required: not authenticated")
      }
      let over = await BlockingWork.run { () -> [SourceBoundClient.Received] in
        client.sendText(#"["REQ","s",{"kinds":[30350]}]"#)
        return [client.receive(), client.receive()]
      }
      #expect(over.first == .text(#"["NOTICE","rate-limited: over 5 messages a minute"]"#))
      #expect(over.last == .close(1008))
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func anAddressOverItsQueryRateIsRefusedOnEveryConnectionAndAnotherIsServed() async throws {
    var limits = PushServiceLimits()
    limits.maxQueriesPerMinutePerIP = 4
    // One fixed minute, so that the test cannot straddle two of the per-address windows.
    let world = try await ServiceWorld(limits: limits, clock: .fixed(Int64(Date().timeIntervalSince1970)))
    do {
      let port = world.service.port
      let first = try #require(await ServingSafely.open(from: "127.0.0.1", port: port))
      let second = try #require(await ServingSafely.open(from: "127.0.0.1", port: port))
      for client in [first, first, second, second] {
        let answer = await ServingSafely.request(client, author: Keys.alice.publicKeyHex)
        #expect(ServingSafely.closedReason(answer) == "auth-required: not authenticated")
      }
      let refused = await ServingSafely.request(second, author: Keys.alice.publicKeyHex)
      #expect(
        ServingSafely.closedReason(refused) == "rate-limited: over 4 queries a minute from your address")
      let query = try await world.query(#"[{"kinds":[1]}]"#, key: Keys.account)
      #expect(query.status == 429)
      #expect(String(decoding: query.body, as: UTF8.self).contains("from your address"))
      let other = try #require(await ServingSafely.open(from: "127.0.0.2", port: port))
      let served = await ServingSafely.request(other, author: Keys.alice.publicKeyHex)
      #expect(ServingSafely.closedReason(served) == "auth-required: not authenticated")
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// A `REQ` whose answer is over the queue bound gets the events that fit, sent as they are read,
/// then `CLOSED` with the reason, never a dropped connection.
@Suite struct PushServiceAnswerBoundTests {
  @Test func anAnswerOverTheBoundStreamsWhatFitsAndClosesWithAReason() async throws {
    let world = try await ServiceWorld()
    do {
      for _ in 0..<3 { #expect(try await world.enroll(try world.mentionLease()).accepted) }
      // The whole answer, with the default bound.
      let client = try #require(
        await ServingSafely.open(from: "127.0.0.1", port: world.service.port, as: Keys.account))
      let whole = await ServingSafely.request(client, author: Keys.account.publicKeyHex)
      let sizes = whole.compactMap { received -> Int? in
        guard case .text(let text) = received, text.hasPrefix(#"["EVENT""#) else { return nil }
        return text.utf8.count
      }
      #expect(sizes.count == 3)
      guard case .text(let end)? = whole.last, end == #"["EOSE","s"]"# else {
        Issue.record("\(whole)")
        throw CancellationError()
      }
      // A bound the first two fill exactly.
      var limits = PushServiceLimits()
      limits.maxAnswerBytes = sizes[0] + sizes[1]
      try await world.restart(limits: limits)
      let bounded = try #require(
        await ServingSafely.open(from: "127.0.0.1", port: world.service.port, as: Keys.account))
      let answer = await ServingSafely.request(bounded, author: Keys.account.publicKeyHex)
      #expect(Array(answer.prefix(2)) == Array(whole.prefix(2)))
      #expect(answer.count == 3)
      #expect(
        ServingSafely.closedReason(answer)
          == "error: answer truncated at \(sizes[0] + sizes[1]) bytes after 2 events")
      // The connection is still served after the truncated answer.
      #expect(await BlockingWork.run { bounded.ping() && bounded.receive() == .pong })
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// The serving loop runs no disk write on the threads that accept and read sockets: while a
/// lease's write waits on the store's lock, the same listener still answers NIP-11 within 50 ms.
@Suite struct PushServiceStalledStoreTests {
  @Test func aWriteWaitingOnTheStoreLockHoldsNoSocketThread() async throws {
    let world = try await ServiceWorld()
    do {
      guard case .sqlite(let path) = world.configuration.store else { throw CancellationError() }
      let holder = try SQLiteConnection<PushServiceError>(path: path, busyTimeoutMilliseconds: 100) {
        PushServiceError(code: .storage, message: $0.message)
      }
      let lease = try world.mentionLease()
      let connection = try await RelayConnection.connect(
        to: world.webSocketURL, key: Keys.account, deadline: .now + .seconds(5))
      try holder.execute("BEGIN IMMEDIATE")
      let enrolling = Task { try await connection.publish(lease, deadline: .now + .seconds(10)) }
      // The enrollment's write waits for the lock from its first milliseconds on (the store's
      // busy timeout is 5 s; these twenty requests take far less).
      var durations: [Duration] = []
      for _ in 0..<20 {
        let (duration, status) = await ServingSafely.timedInformation(
          from: "127.0.0.2", port: world.service.port)
        #expect(status == "HTTP/1.1 200 OK")
        durations.append(duration)
      }
      try holder.execute("COMMIT")
      #expect(try await enrolling.value.accepted)
      await connection.close()
      print(
        "NIP-11 while a lease write waits on the store lock (ms): \(durations.map(ServingSafely.milliseconds))"
      )
      #expect(durations.max()! <= .milliseconds(50), "\(durations.map(ServingSafely.milliseconds))")
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}
