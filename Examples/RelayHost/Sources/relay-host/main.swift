// `swift run relay-host`: a relay's push side hosted with PushRelay's public API, against the
// gateway fixture (Examples/RelayHost/Sources/RelayHostDemo); one line per step.
import RelayHostDemo

for line in try await RelayHostDemo.run() { print(line) }
