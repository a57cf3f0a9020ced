import Foundation
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushRelayServer
import Testing

/// `nostr-push doctor` against a push relay service whose clock is two hours off (a host without
/// NTP): NIP-11 and the push key pass, NIP-42 fails and says why, and the lease gate, which needs
/// an authenticated read, is reported not checked.
@Suite struct DoctorAuthGateTests {
  @Test func aRelayThatRefusesTheAccountsAuthFailsTheNIP42Gate() async throws {
    try await withRelay { upstream in
      let upstreamURL =
        "ws" + RelayServiceCommandTests.base(try #require(upstream.baseURL)).dropFirst("http".count)
      let (folder, config) = try RelayServiceCommandTests.folder(
        upstream: upstreamURL, gateway: "http://127.0.0.1:1")
      defer { try? FileManager.default.removeItem(atPath: folder) }
      let service = try await PushService.start(
        try PushServiceConfiguration(file: config), clock: .fixed(Int64(Date().timeIntervalSince1970) - 7200))
      let accountKey = folder + "/account.key"
      FileManager.default.createFile(
        atPath: accountKey, contents: Data(DoctorLeaseKeyTests.accountHex.utf8),
        attributes: [.posixPermissions: 0o600])
      let run: NostrPushBinary.Run
      do {
        run = try await NostrPushBinary.run([
          "doctor", "--relay", "ws://127.0.0.1:\(service.port)", "--secret-key-file", accountKey,
          "--timeout-ms", "3000",
        ])
      } catch {
        await service.stop()
        throw error
      }
      await service.stop()
      #expect(run.status == 1)
      let lines = run.stdout.split(separator: "\n").map(String.init)
      #expect(lines.count == 4, "\(run.stdout)")
      #expect(lines.first?.hasPrefix("✓ NIP-11: ") == true, "\(run.stdout)")
      #expect(lines.dropFirst().first?.hasPrefix("✓ push key: ") == true, "\(run.stdout)")
      #expect(lines.dropFirst(2).first?.hasPrefix("✗ NIP-42: ") == true, "\(run.stdout)")
      #expect(
        lines.last == "✗ lease: not checked: the relay could not be read as the account", "\(run.stdout)")
    }
  }
}
