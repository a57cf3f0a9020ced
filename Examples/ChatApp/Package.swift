// swift-tools-version: 6.0
// A chat app and its Notification Service Extension, written against NostrPushKit from outside
// the package: only public API, no testable import. `swift run chat-app` plays both halves against the
// loopback fixtures; `swift test` checks what it printed and that relay and extension agree.
import PackageDescription

/// The NostrPushKit products this app links.
func kit(_ name: String) -> Target.Dependency { .product(name: name, package: "NostrPushKit") }

let package = Package(
  name: "ChatApp",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(name: "NostrPushKit", path: "../..")],
  targets: [
    // Production code, as an app team would write it: the app half and the extension half.
    .target(
      name: "ChatApp",
      dependencies: [
        kit("NostrPushCore"), kit("NostrEvent"), kit("NostrWebSocket"), kit("PushDescriptor"),
        kit("PushLease"),
        kit("EnrichmentCache"), kit("NotificationResolver"), kit("PushRegistration"), kit("AppAttest"),
      ]),
    // Test fixtures: the loopback relay (NostrPushTesting), the production gateway on loopback with
    // APNs recorded, and the run over them.
    .target(
      name: "ChatAppDemo",
      dependencies: [
        "ChatApp", kit("NostrPushCore"), kit("NostrJSON"), kit("NostrEvent"), kit("NostrWebSocket"),
        kit("PushDescriptor"), kit("PushLease"), kit("PushRelay"), kit("NostrPushTesting"),
        kit("PushGateway"), kit("NostrHTTPServer"), kit("NostrHTTP"), kit("AppAttest"),
      ]),
    .executableTarget(name: "chat-app", dependencies: ["ChatAppDemo"]),
    .testTarget(
      name: "ChatAppTests",
      dependencies: [
        "ChatApp", "ChatAppDemo", kit("Bech32"), kit("EnrichmentCache"), kit("NIP44"), kit("NostrEvent"),
        kit("NostrHTTP"), kit("NostrJSON"), kit("NostrPushCore"), kit("NostrPushTesting"),
        kit("NostrWebSocket"),
        kit("NotificationResolver"), kit("PushDescriptor"), kit("PushLease"), kit("PushGateway"),
        kit("PushRegistration"), kit("AppAttest"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
