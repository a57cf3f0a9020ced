// swift-tools-version: 6.0
// NostrPushKit: small, independent libraries that turn a content-free Nostr push wake into a
// verified, enriched notification, plus the relay-side pieces a relay can vendor.
import PackageDescription

/// Upcoming features every target is built with (see `../shared/spec/style.md`).
let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "NostrPushKit",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "NostrPushCore", targets: ["NostrPushCore"]),
    .library(name: "NostrJSON", targets: ["NostrJSON"]),
    .library(name: "Bech32", targets: ["Bech32"]),
    .library(name: "NostrEvent", targets: ["NostrEvent"]),
    .library(name: "NostrHTTP", targets: ["NostrHTTP"]),
    .library(name: "PushDescriptor", targets: ["PushDescriptor"]),
    .library(name: "EnrichmentCache", targets: ["EnrichmentCache"]),
    .library(name: "NotificationResolver", targets: ["NotificationResolver"]),
    .library(name: "PushRelay", targets: ["PushRelay"]),
    .library(name: "NostrWebSocket", targets: ["NostrWebSocket"]),
    .library(name: "RelayFixture", targets: ["RelayFixture"]),
    .library(name: "NIP44", targets: ["NIP44"]),
    .library(name: "PushLease", targets: ["PushLease"]),
    .executable(name: "nostr-push", targets: ["nostr-push"]),
    .executable(name: "nostr-push-bench", targets: ["Benchmarks"]),
    .executable(name: "URLSessionBaseline", targets: ["URLSessionBaseline"]),
    .executable(name: "nostr-push-stress", targets: ["StressRunner"]),
  ],
  targets: [
    .systemLibrary(
      name: "CSecp256k1",
      pkgConfig: "libsecp256k1",
      providers: [.apt(["libsecp256k1-dev"]), .brew(["secp256k1"])]
    ),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    // The package's one error shape (`NostrPushError`), under every module.
    .target(name: "NostrPushCore", swiftSettings: strictSettings),
    .target(name: "NostrJSON", dependencies: ["NostrPushCore"], swiftSettings: strictSettings),
    // The one SQLite wrapper (connection, statements, rows) under EnrichmentCache and PushRelay.
    .target(name: "NostrSQLite", dependencies: ["CSQLite"], swiftSettings: strictSettings),
    .target(name: "Bech32", dependencies: ["NostrPushCore"], swiftSettings: strictSettings),
    // SHA-256 blocks on the CPU's SHA extensions (x86-64 SHA-NI); NostrEvent falls back to Swift.
    .target(name: "CSHA256"),
    .target(
      name: "NostrEvent",
      dependencies: ["NostrPushCore", "NostrJSON", "Bech32", "CSecp256k1", "CSHA256"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "NIP44", dependencies: ["NostrPushCore", "NostrEvent", "CSecp256k1"],
      swiftSettings: strictSettings),
    // The package's one HTTP seam (cap, deadline, no redirects, identity encoding) over URLSession.
    .target(name: "NostrHTTP", dependencies: ["NostrPushCore", "NostrEvent"], swiftSettings: strictSettings),
    .target(
      name: "PushDescriptor",
      dependencies: ["NostrPushCore", "NostrJSON", "Bech32", "NostrEvent", "NostrHTTP"],
      swiftSettings: strictSettings),
    .target(
      name: "PushLease",
      dependencies: ["NostrPushCore", "NostrJSON", "NostrEvent", "NIP44", "PushDescriptor"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "EnrichmentCache",
      dependencies: ["NostrPushCore", "NostrSQLite", "NostrJSON", "NostrEvent"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "NostrWebSocket", dependencies: ["NostrPushCore", "NostrJSON", "NostrEvent"],
      swiftSettings: strictSettings),
    .target(
      name: "PushRelay",
      dependencies: ["NostrPushCore", "NostrJSON", "NostrEvent", "NostrHTTP", "PushLease", "PushDescriptor", "NostrSQLite"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "RelayFixture",
      dependencies: ["NostrPushCore", "NostrJSON", "NostrEvent", "NIP44", "PushDescriptor", "PushLease", "PushRelay", "NostrWebSocket"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "NotificationResolver",
      dependencies: [
        "NostrPushCore", "NostrJSON", "Bech32", "NostrEvent", "NostrHTTP", "EnrichmentCache", "NostrWebSocket",
      ],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "nostr-push",
      dependencies: [
        "NostrJSON", "Bech32", "NostrEvent", "PushDescriptor", "EnrichmentCache",
        "NotificationResolver", "RelayFixture", "NIP44", "NostrWebSocket", "NostrHTTP", "NostrPushCore", "PushLease", "PushRelay",
      ],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "Benchmarks",
      dependencies: [
        "CSecp256k1", "NostrJSON", "Bech32", "NostrEvent", "PushDescriptor", "EnrichmentCache",
        "NotificationResolver", "RelayFixture", "NostrHTTP", "NostrPushTestSupport", "NIP44", "PushLease", "PushRelay",
        "NostrWebSocket",
      ],
      swiftSettings: strictSettings
    ),
    // The whole-process baseline of the `resolve` benchmark rows: Foundation + one loopback request.
    .executableTarget(name: "URLSessionBaseline", swiftSettings: strictSettings),
    // `Scripts/stress`: thousands of in-process wakes against the fixture relay with random faults.
    .executableTarget(
      name: "StressRunner",
      dependencies: [
        "CSQLite", "NostrJSON", "NostrEvent", "EnrichmentCache", "NotificationResolver", "RelayFixture",
        "NostrHTTP", "NostrPushTestSupport", "NostrWebSocket",
      ],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "DemoFixtureGenerator",
      dependencies: ["NostrEvent", "NostrJSON"],
      swiftSettings: strictSettings
    ),
    // Test-only helper process for EnrichmentCacheTests (two writers at once, SIGKILL mid-write); not a
    // product. `swift build` / `swift test` build it next to the test bundle.
    .executableTarget(
      name: "CacheStressHelper", dependencies: ["EnrichmentCache", "NostrEvent"],
      swiftSettings: strictSettings),
    // Test-only helper process for PushRelayTests (a delivery sweep to SIGKILL mid-request); not a product.
    .executableTarget(
      name: "PushRelayCrashHelper", dependencies: ["PushRelay", "NostrEvent", "NotificationResolver", "NostrHTTP"],
      swiftSettings: strictSettings),
    // Test support written once: the seeded generator, a raw loopback HTTP responder, polling,
    // and the scoped fixtures (`withStarted`, `withRelay`, `withGateway`) that await `stop()`.
    .target(
      name: "NostrPushTestSupport", dependencies: ["RelayFixture"], path: "Tests/NostrPushTestSupport",
      swiftSettings: strictSettings),
    .testTarget(
      name: "NostrJSONTests", dependencies: ["NostrJSON", "NostrPushTestSupport"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "Bech32Tests", dependencies: ["Bech32", "NostrPushTestSupport"], swiftSettings: strictSettings),
    .testTarget(
      name: "NostrHTTPTests", dependencies: ["NostrHTTP", "NostrPushTestSupport"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "NostrPushCoreTests",
      dependencies: ["NostrPushCore", "NIP44", "NostrEvent", "NostrJSON", "NostrHTTP", "EnrichmentCache"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "NIP44Tests", dependencies: ["NIP44", "NostrEvent", "NostrJSON", "NostrPushTestSupport"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "NostrEventTests",
      dependencies: ["NostrEvent", "NostrJSON", "Bech32", "CSecp256k1", "NostrPushTestSupport"],
      swiftSettings: strictSettings),
    .testTarget(
      name: "PushDescriptorTests",
      dependencies: [
        "PushDescriptor", "NostrJSON", "RelayFixture", "NostrEvent", "NostrHTTP", "NostrPushTestSupport",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "PushLeaseTests",
      dependencies: ["PushLease", "PushDescriptor", "NostrEvent", "NostrJSON", "NIP44", "NostrPushTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "EnrichmentCacheTests",
      dependencies: ["EnrichmentCache", "NostrEvent", "NostrJSON", "CSQLite", "NostrPushTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NostrWebSocketTests",
      dependencies: ["NostrWebSocket", "RelayFixture", "NostrEvent", "NostrJSON", "NostrPushTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "RelayFixtureTests",
      dependencies: ["RelayFixture", "NostrEvent", "NostrJSON", "PushDescriptor", "NostrPushTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "PushRelayTests",
      dependencies: [
        "PushRelay", "RelayFixture", "NostrEvent", "NostrJSON", "PushDescriptor", "NotificationResolver", "CSQLite",
        "NostrHTTP", "PushLease", "NostrWebSocket", "NostrPushTestSupport",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NotificationResolverTests",
      dependencies: [
        "NotificationResolver", "RelayFixture", "EnrichmentCache", "NostrEvent", "NostrJSON", "Bech32",
        "NostrHTTP", "CSQLite", "NostrPushTestSupport",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "ReadmeExamplesTests",
      dependencies: [
        "NostrJSON", "Bech32", "NostrEvent", "PushDescriptor", "EnrichmentCache", "NotificationResolver",
        "RelayFixture", "NIP44", "NostrWebSocket", "PushLease", "PushRelay", "NostrHTTP", "NostrPushTestSupport",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "NostrPushCLITests",
      dependencies: [
        "nostr-push", "NostrEvent", "NostrJSON", "Bech32", "RelayFixture", "EnrichmentCache", "NotificationResolver",
        "PushRelay", "NostrPushTestSupport",
      ],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
