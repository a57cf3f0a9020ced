import Foundation
import NostrEvent
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct MediaTests {
  static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4]

  @Test func servesAFileWithTypeAndETagToAnAuthenticatedClient() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData(media: ["avatar.png": Self.png])) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.media(origin, "avatar.png", key: scenario.account, now: Scenario.now)
      #expect(response.status == 200)
      #expect(response.body == Self.png)
      #expect(response.header("Content-Type") == "image/png")
      #expect(response.header("ETag") == "\"" + Hex.encode(NostrSHA256.hash(Self.png)) + "\"")
    }
  }

  @Test func answers304ForAMatchingETag() async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData(media: ["avatar.png": Self.png])) { server, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let first = try await client.media(origin, "avatar.png", key: scenario.account, now: Scenario.now)
      let tag = try #require(first.header("ETag"))
      let second = try await client.media(
        origin, "avatar.png", key: scenario.account, now: Scenario.now, headers: ["If-None-Match": tag])
      let stale = try await client.media(
        origin, "avatar.png", key: scenario.account, now: Scenario.now, headers: ["If-None-Match": "\"00\""])
      #expect(second.status == 304)
      #expect(second.body.isEmpty)
      #expect(stale.status == 200)
      #expect(server.requests().map(\.status) == [200, 304, 200])
    }
  }

  @Test func requiresNIP98ForMedia() async throws {
    try await Scenario.serving(RelayFixtureData(media: ["avatar.png": Self.png])) { server, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send("GET", origin + "/media/avatar.png")
      #expect(response.status == 401)
      #expect(server.requests().first?.hadAuthorization == false)
    }
  }

  @Test func refusesAuthorizationSignedForAnotherFile() async throws {
    let scenario = Scenario()
    let data = RelayFixtureData(media: ["avatar.png": Self.png, "other.png": Self.png])
    try await Scenario.serving(data) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let auth = try NIP98.authorizationHeader(
        url: origin + "/media/other.png", method: "GET", body: nil, key: scenario.account, now: Scenario.now)
      let response = try await client.send(
        "GET", origin + "/media/avatar.png", headers: ["Authorization": auth])
      #expect(response.status == 401)
    }
  }

  @Test func servesWithoutAuthorizationWhenConfiguredAsAForeignHost() async throws {
    let configuration = RelayFixtureConfiguration(now: Scenario.now, mediaRequiresAuthorization: false)
    try await Scenario.serving(
      RelayFixtureData(media: ["avatar.png": Self.png]), configuration: configuration
    ) {
      server, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send("GET", origin + "/media/avatar.png")
      #expect(response.status == 200)
      #expect(server.requests().first?.hadAuthorization == false)
    }
  }

  @Test(arguments: ["..%2Fnip11.json", "../nip11.json", ".hidden", "a/b.png", "missing.png", ""])
  func answers404ForUnsafeOrMissingNames(name: String) async throws {
    let scenario = Scenario()
    try await Scenario.serving(RelayFixtureData(media: ["avatar.png": Self.png])) { _, origin in
      let connection = try RawConnection(port: port(of: origin))
      let auth = try NIP98.authorizationHeader(
        url: origin + "/media/" + name, method: "GET", body: nil, key: scenario.account, now: Scenario.now)
      connection.send(
        "GET /media/\(name) HTTP/1.1\r\nHost: x\r\nAuthorization: \(auth)\r\nConnection: close\r\n\r\n")
      let response = RawResponse(await connection.readUntilClose().bytes)
      #expect(response?.status == 404)
    }
  }

  @Test func refusesPOSTOnMedia() async throws {
    try await Scenario.serving(RelayFixtureData(media: ["avatar.png": Self.png])) { _, origin in
      let client = HTTPTestClient()
      defer { client.invalidate() }
      let response = try await client.send("POST", origin + "/media/avatar.png", body: [1])
      #expect(response.status == 405)
    }
  }
}
