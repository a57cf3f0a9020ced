import NIP44
import NostrPushCore

/// How a device token is kept at rest: NIP-44 v2 under the `token` key of the current key file,
/// the plaintext `<installation_handle>:<token>`, so a sealed token copied onto another
/// installation's row does not open for it. The row keeps the sealing key's id beside it, so
/// tokens sealed under a previous key file still open.
///
/// The clear token exists only while a registration is handled and while one APNs request is
/// made; it is never stored, logged or answered.
struct DeviceTokenCustody: Sendable {
  let keys: PushGatewayKeys

  /// The sealed form of `token` for `handle`, and the id of the key that sealed it.
  func seal(_ token: String, handle: String) throws(PushGatewayError) -> (sealed: String, kid: String) {
    do {
      return (try NIP44.encrypt(handle + ":" + token, conversationKey: keys.current.token), keys.current.kid)
    } catch {
      throw PushGatewayError(code: .signingFailed, field: "endpoint", message: "NIP-44: \(error.code)")
    }
  }

  /// The token `sealed` holds for `handle`; nil when the key id is unknown, it does not decrypt,
  /// or it was sealed for another handle.
  func open(_ sealed: String, kid: String, handle: String) -> String? {
    guard let key = keys.key(kid: kid),
      let plain = try? NIP44.decrypt(sealed, conversationKey: key.token),
      plain.hasPrefix(handle + ":")
    else { return nil }
    return String(plain.dropFirst(handle.utf8.count + 1))
  }
}
