// `swift run social-app`: the social app and its extension against the loopback fixture relay
// (Examples/SocialApp/Sources/SocialAppDemo); one line per step, exit 0 when every step ran.
import SocialAppDemo

for line in try await SocialAppDemo.run() { print(line) }
