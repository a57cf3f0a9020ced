import NostrJSON

/// One answer of the gateway's routes: its status and exact body, built in one place so the
/// delivery route, the store's kept answers and the registration routes agree byte for byte.
package struct GatewayReply: Sendable, Hashable {
  /// The HTTP status.
  package var status: Int
  /// The exact body.
  package var body: [UInt8]

  /// A reply.
  package init(status: Int, body: [UInt8]) {
    self.status = status
    self.body = body
  }

  /// `{"error":"<code>"}` with `status`.
  package static func error(_ status: Int, _ code: String) -> GatewayReply {
    GatewayReply(status: status, body: Array(#"{"error":"\#(code)"}"#.utf8))
  }

  /// A compact JSON object with `status`.
  package static func object(_ status: Int, _ object: JSONObject) -> GatewayReply {
    GatewayReply(status: status, body: JSONWriter.bytes(.object(object)))
  }

  /// 200 `{"status":"accepted"}`: APNs took the wake.
  package static let accepted = GatewayReply(status: 200, body: Array(#"{"status":"accepted"}"#.utf8))

  /// 410 `{"status":"invalid_endpoint","generation":g,"invalid_at":<s or null>}`.
  package static func invalidEndpoint(generation: Int64, invalidAt: Int64?) -> GatewayReply {
    GatewayReply(
      status: 410,
      body: Array(
        #"{"status":"invalid_endpoint","generation":\#(generation),"invalid_at":\#(invalidAt.map(String.init) ?? "null")}"#
          .utf8))
  }

  /// 503 `{"status":"retry","retry_after_seconds":<n or null>}`: try again.
  package static func retry(after seconds: Int64?) -> GatewayReply {
    GatewayReply(
      status: 503,
      body: Array(#"{"status":"retry","retry_after_seconds":\#(seconds.map(String.init) ?? "null")}"#.utf8))
  }

  /// 429 `{"status":"rate_limited","retry_after_seconds":n}`: over the device's quota.
  package static func rateLimited(after seconds: Int64) -> GatewayReply {
    GatewayReply(
      status: 429, body: Array(#"{"status":"rate_limited","retry_after_seconds":\#(seconds)}"#.utf8))
  }

  /// 503 `{"error":"configuration_fault"}`: the app's APNs configuration is wrong.
  package static let configurationFault = error(503, "configuration_fault")
  /// 400 `{"error":"invalid_request"}`.
  package static let invalidRequest = error(400, "invalid_request")
  /// 404 `{"error":"invalid_grant"}`.
  package static let invalidGrant = error(404, "invalid_grant")
  /// 401 `{"error":"invalid_auth"}`.
  package static let invalidAuth = error(401, "invalid_auth")
  /// 404 `{"error":"not_found"}`: a handle of another owner, or none.
  package static let notFound = error(404, "not_found")
  /// 401 `{"error":"attestation_required"}`: the app requires App Attest and the request has none.
  package static let attestationRequired = error(401, "attestation_required")
  /// 401 `{"error":"invalid_attestation"}`: the attestation or assertion failed a step (logged,
  /// never said), or its challenge was not live.
  package static let invalidAttestation = error(401, "invalid_attestation")
  /// 503 `{"error":"temporarily_unavailable"}`: the store is down.
  package static let temporarilyUnavailable = error(503, "temporarily_unavailable")
}
