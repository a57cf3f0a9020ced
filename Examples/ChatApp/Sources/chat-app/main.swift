// `swift run chat-app`: the chat app and its extension against the loopback fixtures
// (Examples/ChatApp/Sources/ChatAppDemo); one line per step, exit 0 when every step ran.
import ChatAppDemo

for line in try await ChatAppDemo.run() { print(line) }
