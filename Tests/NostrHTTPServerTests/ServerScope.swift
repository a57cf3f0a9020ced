import NostrHTTPServer

/// Runs `body` with a server started on a free loopback port, and stops it afterwards (also when
/// `body` throws).
func withServer<T>(
  _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(), routes: [HTTPServerRoute],
  _ body: (HTTPServer) async throws -> T
) async throws -> T {
  let server = try HTTPServer.start(configuration, router: HTTPServerRouter(routes))
  do {
    let value = try await body(server)
    await server.stop(gracePeriod: .seconds(5))
    return value
  } catch {
    await server.stop(gracePeriod: .seconds(5))
    throw error
  }
}

/// A route that answers its body back with 200.
func echoRoute(_ path: String = "/echo", maxBodyBytes: Int = 1024) -> HTTPServerRoute {
  HTTPServerRoute("POST", path, maxBodyBytes: maxBodyBytes) { request in .json(status: 200, request.body) }
}

/// A route that answers the request target it saw.
let targetRoute = HTTPServerRoute("GET", "/target") { request in .text(status: 200, request.target) }
