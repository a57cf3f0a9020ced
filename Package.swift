// swift-tools-version: 6.1
// NostrPushKit: small, independent libraries that turn a content-free Nostr push wake into a
// verified, enriched notification, plus the relay-side pieces a relay can vendor.
//
// Layout: `Sources/` holds the libraries only; the command-line tool and the demo-fixture
// generator live under `Tools/`, the benchmark, the stress runner and the bare-URLSession baseline
// under `Benchmarks/`, shared test support and the tests' child processes under `Tests/`.
import PackageDescription

/// Upcoming features every target is built with.
let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

/// A library target under `Sources/<name>` in Swift 6 mode with the package's settings.
func library(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
  .target(name: name, dependencies: dependencies, swiftSettings: strictSettings)
}

/// A test target under `Tests/<name>`; every test target may use the shared test support.
func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
  .testTarget(
    name: name, dependencies: dependencies + ["NostrPushTestSupport"], swiftSettings: strictSettings)
}

/// An executable outside `Sources/`, at `path`.
func executable(_ name: String, path: String, _ dependencies: [Target.Dependency]) -> Target {
  .executableTarget(name: name, dependencies: dependencies, path: path, swiftSettings: strictSettings)
}

// secp256k1 is chosen by the host this manifest is evaluated on. On Linux it is the system
// library (apt `libsecp256k1-dev`) and no remote package is declared, so a Linux build resolves
// nothing from the network. Apple SDKs ship no libsecp256k1 and a system-library target cannot
// reach an XCFramework, so on an Apple host NostrEvent and NIP44 link the `libsecp256k1` product
// of swift-secp256k1 (its default traits enable ECDH and Schnorr signatures; extrakeys always),
// pinned to a minor version. Sources import `CSecp256k1` where it exists, else `libsecp256k1`:
// the C calls are the same. swift-secp256k1 0.23.x declares tools 6.1 (hence this manifest's), and
// it enables ECDH and Schnorr through package traits, which Xcode before 26.4 drops at link
// (swift-secp256k1 issue #1159): build the app with Xcode 26.4 or later. On Linux the Apple branch
// is compiled against that package's headers by the Apple build check (`.ci/run`), not linked.
#if canImport(Darwin)
let secp256k1: Target.Dependency = .product(name: "libsecp256k1", package: "swift-secp256k1")
let secp256k1Packages: [Package.Dependency] = [
  .package(url: "https://github.com/21-DOT-DEV/swift-secp256k1", .upToNextMinor(from: "0.23.2"))
]
let secp256k1Targets: [Target] = []
#else
let secp256k1: Target.Dependency = "CSecp256k1"
let secp256k1Packages: [Package.Dependency] = []
let secp256k1Targets: [Target] = [
  .systemLibrary(
    name: "CSecp256k1", pkgConfig: "libsecp256k1",
    providers: [.apt(["libsecp256k1-dev"]), .brew(["secp256k1"])])
]
#endif

// SQLite: on Apple hosts the SDK's own (`link "sqlite3"` in the module map), never pkg-config,
// whose Homebrew paths could reach an iOS build; elsewhere the system library (apt:
// libsqlite3-dev; `bash Scripts/setup`).
#if canImport(Darwin)
let sqliteTarget: Target = .systemLibrary(name: "CSQLite")
#else
let sqliteTarget: Target = .systemLibrary(
  name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])])
#endif

/// The libraries an app, an extension or a relay imports, each its own product.
let libraries = [
  "NostrPushCore", "NostrJSON", "Bech32", "NostrEvent", "NostrHTTP", "NIP44", "NostrWebSocket",
  "PushDescriptor", "PushLease", "EnrichmentCache", "NotificationResolver", "PushRelay",
  "PushRelayPostgres", "NostrPushTesting", "GiftWrap", "NotificationService",
  "NostrHTTPServer", "NostrCurlHTTP", "PushGateway",
  "PushGatewayPostgres",
  "PushRegistration",
  "AppAttest", "PushRelayServer",
]

let package = Package(
  name: "NostrPushKit",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: libraries.map { .library(name: $0, targets: [$0]) } + [
    .executable(name: "nostr-push", targets: ["nostr-push"])
  ],
  dependencies: secp256k1Packages,
  targets: secp256k1Targets + [
    sqliteTarget,
    // libpq, for _NostrPostgres only (apt: libpq-dev).
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
    // libmicrohttpd, under NostrHTTPServer (apt: libmicrohttpd-dev).
    .systemLibrary(
      name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
      providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
    // libcurl, the server side's HTTP/2 client (apt: libcurl4-openssl-dev).
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
    // libcrypto, Linux only: ES256 for the APNs provider token (apt: libssl-dev; CryptoKit on Apple).
    .systemLibrary(name: "COpenSSLCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // SHA-256 blocks on the CPU's SHA extensions (x86-64 SHA-NI); NostrEvent falls back to Swift.
    .target(name: "CSHA256"),

    // The primitives every module shares: the error shape, `Locked`, the deadline race, hex,
    // the canonical relay origin.
    library("NostrPushCore"),
    library("NostrJSON", ["NostrPushCore"]),
    library("Bech32", ["NostrPushCore"]),
    library("NostrEvent", ["NostrPushCore", "NostrJSON", "Bech32", secp256k1, "CSHA256"]),
    // The one HTTP seam (cap, deadline, no redirects, identity encoding); links no crypto.
    library("NostrHTTP", ["NostrPushCore"]),
    library("NIP44", ["NostrPushCore", "NostrEvent", secp256k1]),
    library("NostrWebSocket", ["NostrPushCore", "NostrJSON", "NostrEvent"]),
    // NIP-59 gift wraps carrying NIP-17 direct messages: seal and wrap, unwrap with every check.
    library("GiftWrap", ["NostrPushCore", "NostrJSON", "NostrEvent", "NIP44"]),
    library("PushDescriptor", ["NostrPushCore", "NostrJSON", "Bech32", "NostrEvent", "NostrHTTP"]),
    library("PushLease", ["NostrPushCore", "NostrJSON", "NostrEvent", "NIP44", "PushDescriptor"]),
    // Internal: the one SQLite wrapper and migrator under EnrichmentCache and PushRelay.
    library("_NostrSQLite", ["CSQLite"]),
    // The one libpq wrapper and PostgreSQL migrator, for the relay's and the gateway's stores.
    library("_NostrPostgres", ["CLibPQ"]),
    library("EnrichmentCache", ["NostrPushCore", "_NostrSQLite", "NostrJSON", "NostrEvent"]),
    library(
      "NotificationResolver",
      [
        "NostrPushCore", "NostrJSON", "Bech32", "NostrEvent", "NostrHTTP", "EnrichmentCache",
        "NostrWebSocket", "PushLease", "PushDescriptor", "GiftWrap", "NIP44",
      ]),
    // The Apple-only Notification Service Extension shell: its one file compiles only on iOS, macOS
    // and visionOS (`Docs/NotificationServiceExtension.md`); elsewhere the module is empty. It also
    // holds the app's App Attest provider over DeviceCheck (`DeviceCheckAppAttestProvider`).
    library(
      "NotificationService", ["NotificationResolver", "EnrichmentCache", "NostrPushCore", "AppAttest"]),
    library(
      "PushRelay",
      [
        "NostrPushCore", "NostrJSON", "NostrEvent", "NostrHTTP", "PushLease", "PushDescriptor",
        "_NostrSQLite",
        // libcurl under the gateway client on Linux, where URLSession spins a core while it waits.
        .target(name: "NostrCurlHTTP", condition: .when(platforms: [.linux])),
      ]),
    // PushRelay's store, outbox and wake signal on PostgreSQL, for a relay of several processes.
    library(
      "PushRelayPostgres",
      ["NostrPushCore", "NostrEvent", "PushLease", "PushDescriptor", "PushRelay", "_NostrPostgres"]),
    // The one production HTTP/1.1 server (libmicrohttpd; WebSocket upgrades onto our codec).
    library("NostrHTTPServer", ["NostrPushCore", "NostrWebSocket", "CMicroHTTPD"]),
    // The server side's HTTP client on libcurl's multi interface (HTTP/2, test CA, client
    // certificate); apart from NostrHTTP, which apps and extensions link without libcurl.
    library("NostrCurlHTTP", ["NostrPushCore", "NostrHTTP", "CCurl"]),
    // The production push gateway: the APNs client, its transport and provider token so far.
    library(
      "PushGateway",
      [
        "NostrPushCore", "NostrHTTP", "NostrCurlHTTP", "NostrJSON", "NostrEvent",
        .target(name: "COpenSSLCrypto", condition: .when(platforms: [.linux])),
        "NostrHTTPServer", "NIP44", "_NostrSQLite", "AppAttest",
      ]),
    // The gateway's store on PostgreSQL, for several gateway processes (libpq through _NostrPostgres).
    library(
      "PushGatewayPostgres", ["NostrPushCore", "PushGateway", "_NostrPostgres", "AppAttest"]),
    // The app's side of a push gateway's registration routes (GatewayRegistrar), NIP-98 signed.
    library("PushRegistration", ["NostrPushCore", "NostrJSON", "NostrEvent", "NostrHTTP", "AppAttest"]),
    // App Attest verification (attestations, assertions) on libcrypto; a bounded CBOR reader.
    library(
      "AppAttest",
      [
        "NostrPushCore", "NostrEvent", "NostrJSON",
        .target(name: "COpenSSLCrypto", condition: .when(platforms: [.linux])),
      ]),
    // The production push relay service: NIP-PL push fed by upstream relays and trusted feeds.
    library(
      "PushRelayServer",
      [
        "NostrPushCore", "NostrJSON", "NostrEvent", "NostrHTTP", "NostrWebSocket", "NostrHTTPServer",
        "PushDescriptor", "PushLease", "PushRelay", "_NostrSQLite",
        "PushRelayPostgres", "_NostrPostgres",
      ]),
    // The loopback fixture relay and gateway, for tests, the demo and benchmarks.
    library(
      "NostrPushTesting",
      [
        "NostrPushCore", "NostrJSON", "NostrEvent", "NIP44", "PushDescriptor", "PushLease", "PushRelay",
        "NostrWebSocket", "Bech32", "PushGateway", "NostrHTTP", "AppAttest",
        // The relay protocol rules it serves with are the production ones (ClientMessage,
        // NIP42Check, EventAdmission, EventVisibility, RelayMessages, InformationRequest) and the
        // production server's WebSocket upgrade check.
        "PushRelayServer", "NostrHTTPServer",
        // libcrypto for the synthetic App Attest authority (Linux, like the verifier).
        .target(name: "COpenSSLCrypto", condition: .when(platforms: [.linux])),
      ]),

    // Tools.
    executable(
      "nostr-push", path: "Tools/nostr-push",
      [
        "NostrJSON", "Bech32", "NostrEvent", "PushDescriptor", "EnrichmentCache", "NotificationResolver",
        "NostrPushTesting", "NIP44", "NostrWebSocket", "NostrHTTP", "NostrPushCore", "PushLease", "PushRelay",
        "GiftWrap", "PushRelayPostgres", "PushGateway", "PushGatewayPostgres", "PushRegistration",
        "NostrHTTPServer", "AppAttest", "PushRelayServer",
      ]),
    executable("DemoFixtureGenerator", path: "Tools/DemoFixtureGenerator", ["NostrEvent", "NostrJSON"]),

    // Benchmarks (`swift run -c release nostr-push-bench`), the stress runner and the
    // whole-process baseline of the `resolve` rows (Foundation + one loopback request).
    executable(
      "nostr-push-bench", path: "Benchmarks/nostr-push-bench",
      [
        secp256k1, "NostrJSON", "Bech32", "NostrEvent", "PushDescriptor", "EnrichmentCache",
        "NotificationResolver", "NostrPushTesting", "NostrHTTP", "NostrPushTestSupport", "NIP44", "PushLease",
        "PushRelay", "PushRelayPostgres", "_NostrPostgres", "NostrWebSocket", "GiftWrap", "PushGateway",
        "NostrHTTPServer", "PushRelayServer",
        "NostrCurlHTTP", "_NostrSQLite",
      ]),
    executable(
      "nostr-push-stress", path: "Benchmarks/nostr-push-stress",
      [
        "CSQLite", "NostrJSON", "NostrEvent", "EnrichmentCache", "NotificationResolver", "NostrPushTesting",
        "NostrHTTP", "NostrPushTestSupport", "NostrWebSocket",
      ]),
    executable("URLSessionBaseline", path: "Benchmarks/URLSessionBaseline", []),

    // Test support written once, and the child processes tests start and kill.
    // Sets how many tests run at once in the test process (twice the cores): see its C file.
    .target(name: "CTestWidth", path: "Tests/Support/CTestWidth"),
    .target(
      name: "NostrPushTestSupport",
      dependencies: ["CTestWidth", "NostrPushCore", "NostrPushTesting", "NostrEvent"],
      path: "Tests/Support/NostrPushTestSupport",
      swiftSettings: strictSettings),
    executable(
      "CacheStressHelper", path: "Tests/Helpers/CacheStressHelper", ["EnrichmentCache", "NostrEvent"]),
    executable(
      "PushRelayCrashHelper", path: "Tests/Helpers/PushRelayCrashHelper",
      ["PushRelay", "NostrEvent", "NotificationResolver", "NostrHTTP"]),
    executable(
      "PushGatewayHelper", path: "Tests/Helpers/PushGatewayHelper",
      ["PushGateway", "PushGatewayPostgres", "NostrCurlHTTP", "NostrHTTPServer", "NostrPushCore"]),
    executable(
      "PushRelayPostgresHelper", path: "Tests/Helpers/PushRelayPostgresHelper",
      [
        "PushRelay", "PushRelayPostgres", "NostrEvent", "NostrHTTP", "PushDescriptor", "PushLease",
        "NostrPushCore",
      ]),

    tests(
      "NostrPushCoreTests",
      ["NostrPushCore", "NIP44", "NostrEvent", "NostrJSON", "NostrHTTP", "EnrichmentCache"]),
    tests("NostrJSONTests", ["NostrJSON"]),
    tests("Bech32Tests", ["Bech32", "NostrEvent"]),
    tests("NostrEventTests", ["NostrEvent", "NostrJSON", "Bech32", secp256k1]),
    tests("NostrHTTPTests", ["NostrHTTP"]),
    tests("NostrHTTPServerTests", ["NostrHTTPServer", "NostrWebSocket", "NostrPushCore"]),
    tests("NostrCurlHTTPTests", ["NostrCurlHTTP", "NostrHTTP", "NostrPushCore", "NostrHTTPServer"]),
    tests(
      "PushGatewayTests",
      [
        "PushGateway", "NostrCurlHTTP", "NostrHTTP", "NostrPushCore",
        "NostrHTTPServer", "NostrEvent", "NostrJSON", "NIP44", "PushRelay", "CSQLite", "PushRegistration",
        "AppAttest",
        "PushGatewayPostgres", "_NostrPostgres", "NostrPushTesting", "NostrWebSocket", "PushLease",
        "PushDescriptor",
      ]),
    tests(
      "PushRegistrationTests",
      ["PushRegistration", "NostrEvent", "NostrHTTP", "NostrJSON", "NostrPushCore"]),
    tests(
      "PushRelayServerTests",
      [
        "PushRelayServer", "PushRelay", "NostrPushTesting", "NostrEvent", "NostrJSON", "PushDescriptor",
        "PushLease", "NostrWebSocket", "NostrPushCore", "NostrHTTP", "NostrHTTPServer", "_NostrSQLite",
        "_NostrPostgres",
      ]),
    tests("AppAttestTests", ["AppAttest", "NostrEvent", "NostrPushCore", "NostrJSON", "NostrPushTesting"]),
    tests("NIP44Tests", ["NIP44", "NostrEvent", "NostrJSON"]),
    tests("GiftWrapTests", ["GiftWrap", "NIP44", "NostrEvent", "NostrJSON"]),
    tests("NostrWebSocketTests", ["NostrWebSocket", "NostrPushTesting", "NostrEvent", "NostrJSON"]),
    tests(
      "PushDescriptorTests", ["PushDescriptor", "NostrJSON", "NostrPushTesting", "NostrEvent", "NostrHTTP"]),
    tests("PushLeaseTests", ["PushLease", "PushDescriptor", "NostrEvent", "NostrJSON", "NIP44"]),
    tests("EnrichmentCacheTests", ["EnrichmentCache", "NostrEvent", "NostrJSON", "CSQLite"]),
    tests(
      "NotificationResolverTests",
      [
        "NotificationResolver", "NostrPushTesting", "EnrichmentCache", "NostrEvent", "NostrJSON", "Bech32",
        "NostrHTTP", "CSQLite", "PushLease", "NIP44",
      ]),
    tests(
      "PushRelayTests",
      [
        "PushRelay", "PushRelayPostgres", "_NostrPostgres", "NostrPushTesting", "NostrEvent", "NostrJSON",
        "PushDescriptor", "NotificationResolver",
        "CSQLite", "NostrHTTP", "PushLease", "NostrWebSocket", "NostrCurlHTTP", "NostrHTTPServer",
      ]),
    tests(
      "NostrPushTestingTests",
      ["NostrPushTesting", "NostrEvent", "NostrJSON", "PushDescriptor", "GiftWrap", "NostrWebSocket"]),
    // README.md and Docs/: links, Swift blocks quoted from Examples/ (Scripts/check-docs), the manifest.
    tests("DocumentationTests", []),
    tests(
      "NostrPushCLITests",
      [
        "nostr-push", "NostrEvent", "NostrJSON", "Bech32", "NostrPushTesting", "EnrichmentCache",
        "NotificationResolver", "PushRelay", "GiftWrap", "NostrWebSocket", "PushLease", "_NostrPostgres",
        "PushGateway", "PushDescriptor", "AppAttest", "PushRegistration", "PushRelayServer",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
