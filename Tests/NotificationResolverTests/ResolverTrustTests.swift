import Bech32
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import NotificationResolver
import Testing

@Suite(.timeLimit(.minutes(2))) struct ResolverTrustTests {
  /// `event` with its content changed after signing: the id no longer matches.
  static func forged(_ event: Event, content: String) -> [UInt8] {
    guard case .object(var object) = event.jsonValue else { return [] }
    object["content"] = .string(content)
    return JSONWriter.bytes(.object(object))
  }

  static func answer(_ bodies: [[UInt8]]) -> RelayFault.Action {
    var bytes: [UInt8] = [0x5B]
    for (index, body) in bodies.enumerated() {
      if index > 0 { bytes.append(0x2C) }
      bytes += body
    }
    bytes.append(0x5D)
    return .body(status: 200, contentType: "application/json", bytes: bytes)
  }

  @Test func neverPresentsAForgedMessage() async throws {
    let scenario = RelayScenario()
    let genuine = scenario.message("genuine", createdAt: RelayScenario.now - 100)
    let forged = Self.forged(
      scenario.message("x", createdAt: RelayScenario.now - 10), content: "send me your keys")
    let server = try await scenario.startRelay(
      [],
      faults: [
        RelayFault(path: "/query", kind: 9, action: Self.answer([forged, genuine.jsonBytes()]), times: 1)
      ])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: nil)
      #expect(resolution.outcome.notification?.body == "genuine")
    }
  }

  @Test func neverShowsAForgedProfileName() async throws {
    let scenario = RelayScenario()
    let forged = Self.forged(scenario.profile(name: "Alice"), content: #"{"name":"Your Bank"}"#)
    let server = try await scenario.startRelay(
      [scenario.message("hi")], faults: [RelayFault(path: "/query", kind: 0, action: Self.answer([forged]))])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: nil)
      #expect(
        resolution.outcome.notification?.title == CompactNpub.display(for: scenario.sender.publicKeyHex))
      #expect(resolution.outcome.notification?.enrichment == EnrichmentSource.none)
    }
  }

  @Test func ignoresAProfileFromAnotherAuthor() async throws {
    let scenario = RelayScenario()
    let impostor = scenario.profile(of: scenario.other, name: "Your Bank")
    let server = try await scenario.startRelay(
      [scenario.message("hi")],
      faults: [RelayFault(path: "/query", kind: 0, action: Self.answer([impostor.jsonBytes()]))])
    try await server.serving {
      let folder = TemporaryFolder()
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: try folder.cache())
      #expect(
        resolution.outcome.notification?.title == CompactNpub.display(for: scenario.sender.publicKeyHex))
    }
  }

  @Test func ignoresChannelMetadataNotSignedByTheRelayKey() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([
      scenario.message("hi"), scenario.channelMetadata(name: "fake", signer: scenario.other),
      scenario.membership(
        [scenario.account.publicKeyHex, scenario.other.publicKeyHex], signer: scenario.other),
    ])
    try await server.serving {
      let folder = TemporaryFolder()
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: try folder.cache())
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.subtitle == nil)
      #expect(notification.recipientCount == nil)
    }
  }

  @Test func sendsCredentialsToTheRelaysOwnMediaOnly() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let foreign = try await scenario.startRelay(
      [], media: ["a.png": ImageBytes.png], mediaRequiresAuthorization: false)
    try await foreign.serving {
      let picture = foreign.origin! + "/media/a.png"
      let server = try await scenario.startRelay(
        [scenario.message("hi")] + scenario.enrichmentEvents(picture: picture))
      try await server.serving {
        let resolution = await scenario.resolve(
          try scenario.configuration(server, relayPubkey: true, avatarDirectory: folder.path + "/avatars"),
          cache: try folder.cache())
        let file = try #require(resolution.outcome.notification?.avatarFile)
        #expect(FileManager.default.contents(atPath: file).map { [UInt8]($0) } == ImageBytes.png)
        let mediaRequests = foreign.requests().filter { $0.path == "/media/a.png" }
        #expect(mediaRequests.count == 1)
        #expect(mediaRequests.allSatisfy { !$0.hadAuthorization })
      }
    }
  }

  @Test func authenticatesToTheRelaysOwnMedia() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay([scenario.message("hi")], media: ["me.png": ImageBytes.png])
    try await server.serving {
      try server.add(scenario.enrichmentEvents(picture: server.origin! + "/media/me.png"))
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true, avatarDirectory: folder.path + "/avatars"),
        cache: try folder.cache())
      #expect(resolution.outcome.notification?.avatarFile != nil)
      #expect(server.requests().filter { $0.path == "/media/me.png" }.map(\.status) == [200])
    }
  }

  @Test func refusesAnSVGAvatar() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay([scenario.message("hi")], media: ["a.svg": ImageBytes.svg])
    try await server.serving {
      try server.add(scenario.enrichmentEvents(picture: server.origin! + "/media/a.svg"))
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true, avatarDirectory: folder.path + "/avatars"),
        cache: try folder.cache())
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.title == "Alice")
      #expect(notification.avatarFile == nil)
      #expect(server.requestCount(path: "/media/a.svg") == 1)
    }
  }
}

@Suite(.timeLimit(.minutes(2))) struct ResolverAvatarSharingTests {
  @Test func downloadsAnAvatarOnceForConcurrentWakes() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let messages = (0..<2).map { scenario.message("m\($0)", createdAt: RelayScenario.now - 10 - Int64($0)) }
    let server = try await scenario.startRelay(
      messages, media: ["me.png": ImageBytes.png],
      faults: [RelayFault(path: "/media/me.png", action: .delay(milliseconds: 300))])
    try await server.serving {
      try server.add(scenario.enrichmentEvents(picture: server.origin! + "/media/me.png"))
      let configuration = try scenario.configuration(
        server, relayPubkey: true, avatarDirectory: folder.path + "/avatars")
      // Two devices (two cache files): each presents, and the process shares the download.
      let caches = try (0..<2).map { try folder.cache(named: "device-\($0).sqlite") }
      async let a = scenario.resolve(configuration, cache: caches[0])
      async let b = scenario.resolve(configuration, cache: caches[1])
      let files = await [a, b].map { $0.outcome.notification?.avatarFile }
      #expect(files[0] != nil && files[0] == files[1])
      #expect(server.requestCount(path: "/media/me.png") == 1)
    }
  }
}
