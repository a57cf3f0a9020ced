// swift-tools-version: 6.0
// A Swift relay that vendors NostrPushKit's relay side, written from outside the package: only
// public API, no testable import. `swift run relay-host` serves a descriptor, ingests a lease, matches
// a message and delivers the wake to the gateway fixture; `swift test` checks what it printed.
import PackageDescription

/// The NostrPushKit products this relay links.
func kit(_ name: String) -> Target.Dependency { .product(name: name, package: "NostrPushKit") }

let package = Package(
  name: "RelayHost",
  platforms: [.macOS(.v13), .iOS(.v16)],
  dependencies: [.package(name: "NostrPushKit", path: "../..")],
  targets: [
    // Production code: the relay's push side, as a relay team would wire it.
    .target(
      name: "RelayHost",
      dependencies: [
        kit("NostrPushCore"), kit("NostrJSON"), kit("NostrEvent"), kit("NostrHTTP"), kit("PushDescriptor"),
        kit("PushLease"), kit("PushRelay"),
      ]),
    // Test fixtures: the gateway fixture (NostrPushTesting), an app's lease, the run over them.
    .target(
      name: "RelayHostDemo",
      dependencies: [
        "RelayHost", kit("NostrPushCore"), kit("NostrJSON"), kit("NostrEvent"), kit("PushDescriptor"),
        kit("PushLease"),
        kit("PushRelay"), kit("NostrPushTesting"),
      ]),
    .executableTarget(name: "relay-host", dependencies: ["RelayHostDemo"]),
    .testTarget(
      name: "RelayHostTests",
      dependencies: [
        "RelayHostDemo", kit("NostrEvent"), kit("NostrHTTP"), kit("NostrPushCore"), kit("NostrPushTesting"),
        kit("NostrWebSocket"), kit("PushDescriptor"), kit("PushLease"), kit("PushRelay"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
