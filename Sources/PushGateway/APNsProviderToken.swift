import Foundation
import NostrPushCore

/// One APNs provider token: the ES256 JWT `{"alg":"ES256","kid":K}.{"iss":T,"iat":s}` and the
/// Unix second it was issued.
public struct APNsProviderToken: Sendable, Hashable {
  /// The compact JWT (`header.claims.signature`, base64url without padding).
  public let jwt: String
  /// The `iat` claim, Unix seconds.
  public let issuedAt: Int64

  /// The `authorization` header value: `bearer <jwt>`.
  public var authorization: String { "bearer " + jwt }

  /// A token as stored: its JWT and `iat` (a store reading back what it kept).
  public init(jwt: String, issuedAt: Int64) {
    self.jwt = jwt
    self.issuedAt = issuedAt
  }

  /// Signs a token for `keyID` and `teamID` issued at `issuedAt` with `key`.
  static func make(
    key: APNsSigningKey, keyID: APNsIdentifier, teamID: APNsIdentifier, issuedAt: Int64
  ) throws(PushGatewayError) -> APNsProviderToken {
    let header = #"{"alg":"ES256","kid":"\#(keyID.value)"}"#
    let claims = #"{"iss":"\#(teamID.value)","iat":\#(issuedAt)}"#
    let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    let signature = try key.sign(Array(signingInput.utf8))
    return APNsProviderToken(jwt: signingInput + "." + Base64URL.encode(signature), issuedAt: issuedAt)
  }
}

/// An APNs key id or team id: 10 ASCII upper-case letters or digits, as Apple issues them.
public struct APNsIdentifier: Sendable, Hashable, CustomStringConvertible {
  /// The identifier.
  public let value: String

  /// `invalid_identifier` (the field named) unless `text` is 10 of `A`–`Z`, `0`–`9`.
  public init(_ text: String, field: String) throws(PushGatewayError) {
    guard text.utf8.count == 10,
      text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
    else {
      throw PushGatewayError(
        code: .invalidIdentifier, field: field, message: "not 10 upper-case letters or digits")
    }
    value = text
  }

  /// The identifier.
  public var description: String { value }
}

/// Base64url without padding (RFC 7515 §2), the JWT encoding.
enum Base64URL {
  /// The unpadded base64url text of `bytes`.
  static func encode(_ bytes: [UInt8]) -> String {
    var text = Data(bytes).base64EncodedString()
    while text.hasSuffix("=") { text.removeLast() }
    return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
  }
}
