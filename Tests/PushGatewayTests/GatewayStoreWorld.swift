import Foundation
import NostrEvent
import NostrPushCore

@testable import PushGateway

/// One gateway store of the store's contract tests, on a backend of its own (a SQLite file in a
/// fresh folder, or a fresh PostgreSQL database), with an owner, a relay key and the clock's
/// second; each suite adds the calls it drives in an extension of its own.
struct GatewayStoreWorld {
  var directory: URL
  var location: GatewayStoreLocation
  var store: any PushGatewayStore
  var owner = SecretKey.generate().publicKeyHex
  var relay = SecretKey.generate().publicKeyHex
  var now: Int64 = 1_767_226_200

  init(_ backend: GatewayStoreBackend) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gateway-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    location = try backend.makeLocation(in: directory)
    store = try location.open()
  }

  /// Drops the backend and the folder.
  func remove() {
    location.cleanup()
    try? FileManager.default.removeItem(at: directory)
  }

  /// A fresh NIP-98 burn, live for two minutes.
  func auth() -> AuthBurn { AuthBurn(id: Hex.encode(SystemRandom.bytes(32)), expiresAt: now + 120) }
}
