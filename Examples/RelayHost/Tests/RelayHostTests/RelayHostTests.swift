import RelayHostDemo
import Testing

/// What `relay-host` prints: the descriptor served and read back, the lease judged by identity,
/// the mention matched, and the wake retried after the gateway's 503 with the same request_id.
@Suite(.timeLimit(.minutes(1))) struct RelayHostRunTests {
  @Test func everyStepHappens() async throws {
    let lines = try await RelayHostDemo.run()
    #expect(
      lines == [
        "relay: serves NIP-11 with nip-pl push, read back equal: true",
        "relay: the lease sent by another identity: false invalid: event pubkey does not match authenticated identity",
        "relay: the lease from its author: true",
        "relay: the mention enqueued 1 wake for event ping",
        "worker: attempt [1] answered [\"unavailable(retryAfterSeconds: Optional(5))\"]",
        "worker: a sweep before the backoff passed sent 0",
        "worker: attempt [2] answered [\"accepted\"]",
        "gateway: [503, 200] for one request_id; 1 APNs request, apns-id is the wake's request_id: true",
      ])
  }
}
