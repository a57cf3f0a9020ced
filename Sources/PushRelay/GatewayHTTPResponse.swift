/// What the gateway answered, as `GatewayClient.classify(_:)` reads it: the status and at most
/// `maxResponseBytes` of the body.
package struct GatewayHTTPResponse: Sendable, Hashable {
  /// The status (redirects are never followed, so a 3xx arrives as is).
  package var status: Int
  /// The body bytes kept.
  package var body: [UInt8]
  /// Whether the body was longer than the cap (then it is unparseable for the client).
  package var bodyExceededCap: Bool

  /// Creates a response.
  package init(status: Int, body: [UInt8], bodyExceededCap: Bool = false) {
    self.status = status
    self.body = body
    self.bodyExceededCap = bodyExceededCap
  }
}
