import NostrEvent

/// The `NIP98ReplayStore` of the gateway's verifiers: it accepts every id, because the gateway
/// burns ids in its ``PushGatewayStore``, inside the same transaction as the request's effect
/// (shared by replicas, `Docs/Robustness.md`), once the verifier has checked everything else.
struct StoreBurnedReplays: NIP98ReplayStore {
  /// Accepts `id`: the store's transaction burns it.
  func burn(_ id: String, expiresAt: Int64, now: Int64) throws(NIP98Error) {}
}
