// swift-tools-version: 6.0
// A social app (Damus-like) and its Notification Service Extension, written against NostrPushKit
// from outside the package: only public API, no testable import. `swift run social-app` plans a
// social lease and resolves a mention, a reaction with a custom emoji, a validated zap and a
// repost against the loopback fixture relay; `swift test` checks what it printed.
import PackageDescription

/// The NostrPushKit products this app links.
func kit(_ name: String) -> Target.Dependency { .product(name: name, package: "NostrPushKit") }

let package = Package(
  name: "SocialApp",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(name: "NostrPushKit", path: "../..")],
  targets: [
    // Production code, as an app team would write it: the app half and the extension half.
    .target(
      name: "SocialApp",
      dependencies: [
        kit("NostrPushCore"), kit("NostrEvent"), kit("PushDescriptor"), kit("PushLease"),
        kit("EnrichmentCache"),
        kit("NotificationResolver"),
      ]),
    // Test fixtures: the loopback relay (NostrPushTesting) and the run over it.
    .target(
      name: "SocialAppDemo",
      dependencies: [
        "SocialApp", kit("NostrPushCore"), kit("NostrJSON"), kit("NostrEvent"), kit("PushDescriptor"),
        kit("PushLease"), kit("NotificationResolver"), kit("NostrPushTesting"),
      ]),
    .executableTarget(name: "social-app", dependencies: ["SocialAppDemo"]),
    .testTarget(name: "SocialAppTests", dependencies: ["SocialAppDemo"]),
  ],
  swiftLanguageModes: [.v6]
)
