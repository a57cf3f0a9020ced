import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// URLSessionBaseline URL
// The whole-process baseline of the `resolve` benchmark rows (Docs/Performance.md): a process that only
// imports Foundation and makes one loopback URLSession request, then prints the status and exits.

guard CommandLine.arguments.count == 2, let url = URL(string: CommandLine.arguments[1]) else {
  FileHandle.standardError.write(Data("usage: URLSessionBaseline URL\n".utf8))
  exit(2)
}
var request = URLRequest(url: url, timeoutInterval: 10)
request.setValue("application/nostr+json", forHTTPHeaderField: "Accept")
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var status = 0
let task = URLSession.shared.dataTask(with: request) { _, response, _ in
  status = (response as? HTTPURLResponse)?.statusCode ?? 0
  done.signal()
}
task.resume()
done.wait()
print(status)
exit(status == 200 ? 0 : 1)
