/// An ``APNsProviderTokenSlot`` kept in the gateway's store, so every replica sends the same
/// provider token (APNs counts tokens per team).
///
/// One slot per signing key: name it by the key id and team id (``slotName(keyID:teamID:)``).
public struct StoreProviderTokenSlot: APNsProviderTokenSlot {
  private let store: any PushGatewayStore
  private let slot: String

  /// The slot `slot` of `store`.
  public init(store: any PushGatewayStore, slot: String) {
    self.store = store
    self.slot = slot
  }

  /// The slot name of a signing key: `<team_id>.<key_id>`.
  public static func slotName(keyID: APNsIdentifier, teamID: APNsIdentifier) -> String {
    teamID.value + "." + keyID.value
  }

  /// The stored token; `token_store_unavailable` when the store fails.
  public func load() async throws(PushGatewayError) -> APNsProviderToken? {
    do {
      return try await store.providerToken(slot: slot)
    } catch {
      throw PushGatewayError(code: .tokenStoreUnavailable, field: "store", message: error.message)
    }
  }

  /// Stores `new` if the slot still holds `expected`; what it holds afterwards.
  public func replace(_ expected: APNsProviderToken?, with new: APNsProviderToken)
    async throws(PushGatewayError)
    -> APNsProviderToken
  {
    do {
      return try await store.replaceProviderToken(slot: slot, expected: expected, with: new)
    } catch {
      throw PushGatewayError(code: .tokenStoreUnavailable, field: "store", message: error.message)
    }
  }
}
