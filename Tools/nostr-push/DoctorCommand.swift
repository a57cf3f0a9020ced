import Foundation
import NostrEvent
import NostrHTTP
import NostrWebSocket
import PushDescriptor
import PushLease

/// `nostr-push doctor`: "why no push?" — one line per push gate, ✓ or ✗ with the reason, in the
/// order a wake needs them; exit 0 when every checked gate passes.
///
/// Gates: the relay's NIP-11 carries a valid push descriptor; it names a current push key;
/// NIP-42 `AUTH` as the account is accepted; the account's lease is readable back (opened with
/// the account key: its `d`, sealed generation, expiry and key id); with `--gateway`, the gateway answers HTTP; with
/// `--test-wake URL`, a wake is delivered to the gateway fixture at URL (``DoctorTestWake``: the
/// doctor opens its own lease, publishes an event it matches and watches the fixture's delivery
/// list). A later gate that depends on an earlier failed one is reported ✗ "not checked".
enum DoctorCommand: CLICommand {
  static let name = "doctor"
  static let summary = "Check each push gate of a relay for an account, one line each (✓/✗)"
  static let usage = """
    usage: nostr-push doctor --relay URL --secret-key-file FILE [--gateway URL] [--test-wake URL]
                             [--timeout-ms 8000]

    Prints one line per push gate, each ✓ or ✗ with the reason: the relay's NIP-11 carries a valid
    push descriptor; it names a current push key; NIP-42 AUTH as the account (the key in FILE,
    64 hex or nsec1…) is accepted; the account's lease (kind 30350) is readable back (opened with
    the account key), with its d, generation, expiry and key id; with --gateway, the push gateway answers HTTP; with --test-wake, a test
    wake is delivered: the doctor opens its own lease (the account key and the push key's pubkey
    share the NIP-44 conversation key), publishes a note from a throwaway key tagging the account
    that a subscription of the lease matches (to the relay, or to the upstream its "blocked: push
    relay: publish to URL" answer names), and passes when the gateway fixture at the --test-wake
    URL (nostr-push gateway without --config) lists a new delivery signed by the lease's push key
    in GET /v1/test/deliveries. Exit 0 when every checked gate passes, 1 otherwise. --timeout-ms
    bounds each network step and the wait for the wake (100-60000).
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(
      arguments, valueFlags: ["relay", "secret-key-file", "gateway", "test-wake", "timeout-ms"])
    _ = try reader.positionals(atMost: 0)
    let relay = try reader.required("relay")
    guard relay.hasPrefix("ws://") || relay.hasPrefix("wss://") else {
      throw UsageError("--relay must be a ws:// or wss:// URL")
    }
    let testWake = reader.value("test-wake")
    if let testWake, !(testWake.hasPrefix("http://") || testWake.hasPrefix("https://")) {
      throw UsageError("--test-wake must be an http:// or https:// URL")
    }
    let key = try SecretKeyFile.read(try reader.required("secret-key-file"))
    guard let milliseconds = try reader.integer("timeout-ms", default: 8000),
      (100...60_000).contains(milliseconds)
    else { throw UsageError("--timeout-ms must be in 100...60000") }
    let timeout = Duration.milliseconds(milliseconds)
    var failed = false
    func report(_ ok: Bool, _ gate: String, _ reason: String) {
      if !ok { failed = true }
      CLIOutput.line("\(ok ? "✓" : "✗") \(gate): \(reason)")
    }
    // 1. NIP-11 and the push descriptor.
    var descriptor: PushDescriptor?
    do {
      descriptor = try await PushDiscovery().discover(relay: relay, timeout: timeout).push
      report(true, "NIP-11", "\(relay) serves a valid \(descriptor!.pushProtocol.rawValue) push descriptor")
    } catch {
      report(false, "NIP-11", "\(error.code.rawValue): \(error.message)")
    }
    // 2. The current push key.
    let current = descriptor?.currentKey
    if let current {
      report(true, "push key", "current key \(current.id) (\(current.pubkey.prefix(16))…)")
    } else {
      report(
        false, "push key", descriptor == nil ? "not checked: no descriptor" : "push.keys names no current key"
      )
    }
    // 3. NIP-42 and 4. the lease, over one connection.
    var leases: [Event]?
    var checkedLease: Event?
    do {
      let connection = try await RelayConnection.connect(to: relay, key: key, deadline: .now + timeout)
      do {
        leases = try await connection.query(
          [Filter(authors: [key.publicKeyHex], kinds: [30350])], deadline: .now + timeout)
      } catch {
        report(false, "NIP-42", "the lease query failed: \(error.code.rawValue): \(error.message)")
      }
      let authenticated = await connection.authenticatedPubkey
      await connection.close(deadline: .now + .seconds(1))
      if leases != nil {
        if authenticated == key.publicKeyHex {
          report(true, "NIP-42", "AUTH accepted as \(key.publicKeyHex.prefix(16))…")
        } else {
          report(false, "NIP-42", "the relay answered without authenticating the account")
        }
      }
    } catch {
      report(false, "NIP-42", "cannot connect: \(error.code.rawValue): \(error.message)")
    }
    if let leases {
      let now = Int64(Date().timeIntervalSince1970)
      if let lease = leases.max(by: { $0.createdAt < $1.createdAt }) {
        let d = lease.tagValues("d").first ?? "?"
        let expiration = lease.tagValues("expiration").first.flatMap { Int64($0) }
        let keyID = lease.tagValues("exec").first ?? "?"
        if let expiration, expiration <= now {
          report(false, "lease", "d=\(d) expired at \(expiration)")
        } else if let current, keyID != current.id {
          report(
            false, "lease", "d=\(d) is sealed to key \(keyID), not the current \(current.id): enroll again")
        } else if let descriptor {
          // Readable back means opened: the account and the push key share the NIP-44
          // conversation key, so the account reads its own lease's sealed generation.
          do {
            let opened = try LeaseValidator(descriptor: descriptor, author: key).open(
              lease, tenantOrigin: descriptor.origin, now: now)
            report(
              true, "lease",
              "d=\(d), generation \(opened.generation), expires \(expiration.map(String.init) ?? "?"), key \(keyID)"
            )
            checkedLease = lease
          } catch {
            report(false, "lease", "d=\(d) cannot be read back: \(error.message)")
          }
        } else {
          report(true, "lease", "d=\(d), expires \(expiration.map(String.init) ?? "?"), key \(keyID)")
          checkedLease = lease
        }
      } else {
        report(false, "lease", "no kind 30350 lease by this account is stored at \(relay)")
      }
    } else {
      report(false, "lease", "not checked: the relay could not be read as the account")
    }
    // 5. The gateway.
    if let gateway = reader.value("gateway") {
      do {
        let answer = try await URLSessionHTTPTransport.shared.send(
          HTTPTransportRequest(
            url: gateway, method: "GET", headers: [:], body: nil, maxResponseBytes: 16 * 1024),
          deadline: .now + timeout)
        report(true, "gateway", "\(gateway) answered HTTP \(answer.status)")
      } catch {
        report(false, "gateway", "\(gateway) unreachable: \(error.message)")
      }
    }
    // 6. The test wake.
    if let testWake {
      if let checkedLease, let descriptor {
        let verdict = await DoctorTestWake(fixture: testWake, relay: relay, account: key, timeout: timeout)
          .check(lease: checkedLease, descriptor: descriptor)
        report(verdict.passed, "test wake", verdict.reason)
      } else {
        report(false, "test wake", "not checked: no lease passed its gate")
      }
    }
    return failed ? ExitCode.failure : ExitCode.success
  }
}
