import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import PushRegistration
import Testing

@testable import PushGateway

/// The worked examples of `Docs/Protocol/Gateway.md`: the bodies `GatewayRegistrar` sends, the
/// answers a real `PushGateway` gave on a loopback socket (its random handle, delegation id and
/// grant put in place of the document's), the grant's plaintext, and the APNs request it sent.
@Suite struct ProtocolGatewayDocTests {
  /// The handle, delegation id and grant the document shows.
  static let documentHandle = "5e0c4a1f9b2d4c6e8a0b1c2d3e4f5a6b"
  static let documentDelegationID = "8d1e5f2a7b3c4d6e9f0a1b2c3d4e5f60"
  static let documentGrant = "g1.3f9a0c7e.AqJ5…"
  /// The document's device token and request id.
  static let token = String(repeating: "a1b2c3d4", count: 8)
  static let requestID = "0f4c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13"

  /// The lines between the fences after `<!-- checked: name -->` in the document.
  static func example(_ name: String) throws -> String {
    let text = try String(contentsOf: PackageRoot.appending("Docs/Protocol/Gateway.md"), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    let marker = try #require(lines.firstIndex(of: "<!-- checked: \(name) -->"), "no example \(name)")
    try #require(lines[marker + 1].hasPrefix("```"))
    let end = try #require(lines[(marker + 2)...].firstIndex(of: "```"))
    return lines[(marker + 2)..<end].joined(separator: "\n")
  }

  /// The relay of the examples: secret key 1, whose public key is the curve's generator.
  static func relay() throws -> SecretKey {
    try SecretKey(hex: String(repeating: "0", count: 63) + "1")
  }

  @Test func theRegistrationRoutesAreTheDocuments() async throws {
    try await withGatewayHarness { harness in
      let recorder = ExchangeRecorder(inner: harness.http)
      let registrar = try GatewayRegistrar(
        baseURL: harness.baseURL, key: SecretKey.generate(), transport: recorder, clock: harness.clock.clock)
      let deadline = ContinuousClock.now + .seconds(20)

      let registered = try await registrar.register(
        appProfile: GatewayHarness.profile, deviceToken: Self.token, expiresAt: harness.now + 30 * 86_400,
        deadline: deadline)
      guard case .created(let installation) = registered else {
        throw HarnessFailure(message: "register: \(registered)")
      }
      let handle = installation.handle
      func own(_ text: String) -> String { text.replacingOccurrences(of: Self.documentHandle, with: handle) }
      #expect(recorder.last.body == (try Self.example("the registration body")))
      #expect(recorder.last.status == 201)
      #expect(recorder.last.answer == own(try Self.example("the registration answer")))

      let other = try GatewayRegistrar(
        baseURL: harness.baseURL, key: SecretKey.generate(), transport: recorder, clock: harness.clock.clock)
      #expect(
        try await other.register(
          appProfile: GatewayHarness.profile, deviceToken: Self.token, expiresAt: harness.now + 86_400,
          deadline: deadline) == .installationConflict)
      #expect(recorder.last.status == 409)
      #expect(recorder.last.answer == (try Self.example("the conflict answer")))

      let delegated = try await registrar.delegate(
        installationHandle: handle, relayPubkey: try Self.relay().publicKeyHex, generation: 1,
        expiresAt: harness.now + 7 * 86_400, deadline: deadline)
      guard case .created(let delegation) = delegated else {
        throw HarnessFailure(message: "delegate: \(delegated)")
      }
      #expect(recorder.last.body == own(try Self.example("the delegation body")))
      #expect(
        recorder.last.answer
          == (try Self.example("the delegation answer")).replacingOccurrences(
            of: Self.documentGrant, with: delegation.endpointGrant))

      let rotated = try await registrar.rotate(
        installationHandle: handle, deviceToken: String(repeating: "e5f60718", count: 8), deadline: deadline)
      guard case .done(let rotation) = rotated else { throw HarnessFailure(message: "rotate: \(rotated)") }
      #expect(rotation.endpointEpoch == 2)
      #expect(recorder.last.answer == (try Self.example("the rotation answer")))

      #expect(
        try await registrar.revoke(installationHandle: handle, deadline: deadline)
          == .done(GatewayRevocation()))
      #expect(recorder.last.answer == (try Self.example("the revocation answer")))
    }
  }

  @Test func theGrantAndTheAPNsRequestAreTheDocuments() async throws {
    try await withGatewayHarness { harness in
      let relay = try Self.relay()
      let (grant, _) = try await harness.grant(owner: SecretKey.generate(), relay: relay, token: Self.token)
      #expect(grant.hasPrefix("g1.\(harness.keys.current.kid)."))
      let opened = try #require(EndpointGrant.open(grant, keys: harness.keys))
      #expect(
        opened.plaintext
          == (try Self.example("the grant's plaintext")).replacingOccurrences(
            of: Self.documentDelegationID, with: opened.delegationID))

      let answer = try await harness.deliver(
        grant, relay: relay, requestID: Self.requestID, expiresAt: harness.now + 600)
      #expect(answer.status == 200)
      let sent = try #require(harness.recording.requests.last)
      let lines = [":path \(sent.path)"] + sent.headers.map { "\($0.name): \($0.value)" }
      #expect(lines.joined(separator: "\n") == (try Self.example("the APNs request")))
      #expect(String(decoding: sent.body, as: UTF8.self) == (try Self.example("the APNs body")))
    }
  }
}

/// An ``HTTPTransport`` that forwards to another and keeps the last request body and answer.
final class ExchangeRecorder: HTTPTransport {
  struct Exchange {
    var body = ""
    var status = 0
    var answer = ""
  }

  private let inner: any HTTPTransport
  private let state = Locked(Exchange())

  init(inner: any HTTPTransport) { self.inner = inner }

  /// The last exchange.
  var last: Exchange { state.current }

  func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant)
    async throws(HTTPTransportError)
    -> HTTPTransportResponse
  {
    let response = try await inner.send(request, deadline: deadline)
    state.withLock {
      $0 = Exchange(
        body: String(decoding: request.body ?? [], as: UTF8.self), status: response.status,
        answer: String(decoding: response.body, as: UTF8.self))
    }
    return response
  }
}
