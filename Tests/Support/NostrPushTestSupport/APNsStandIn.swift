import Foundation
import NostrHTTP
import NostrPushCore

/// The tests' stand-in APNs server (`Scripts/apns-standin.py`, python3-h2 over real TLS), started
/// with a throwaway CA of its own in a fresh temporary folder, and stopped (its folder removed)
/// by ``withAPNsStandIn(_:)``.
public final class APNsStandIn: Sendable {
  /// What the stand-in counted so far.
  public struct Stats: Sendable, Equatable {
    /// TLS connections that negotiated h2.
    public var connections: Int
    /// HTTP/2 streams opened.
    public var streams: Int
    /// Requests answered or stalled (the control port's are not counted).
    public var requests: Int
    /// The common name of each client certificate presented, one per connection.
    public var clientCertificates: [String]
    /// Distinct bearer tokens seen.
    public var jwts: Int
  }

  /// One request as the stand-in received it.
  public struct Recorded: Sendable {
    /// The `:path`.
    public var path: String
    /// Every header field in order, pseudo-headers included.
    public var headers: [(name: String, value: String)]
    /// The body as text.
    public var body: String
    /// Whether the bearer JWT verified against the key given to ``trustJWT(keyID:teamID:publicKeyPEM:)``
    /// (nil before one was given).
    public var jwtValid: Bool?

    /// The value of the first header `name`.
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
  }

  /// The HTTPS (h2) port on 127.0.0.1.
  public let port: UInt16
  /// The plain HTTP control port.
  public let controlPort: UInt16
  /// The folder holding this run's CA and certificates.
  public let directory: URL
  private let process: ChildProcess

  private init(port: UInt16, controlPort: UInt16, directory: URL, process: ChildProcess) {
    self.port = port
    self.controlPort = controlPort
    self.directory = directory
    self.process = process
  }

  /// The origin requests go to: `https://127.0.0.1:<port>`.
  public var origin: String { "https://127.0.0.1:\(port)" }
  /// The PEM file of this run's CA.
  public var caFile: String { directory.appendingPathComponent("ca.pem").path }
  /// A client certificate signed by this run's CA (common name `standin-client`).
  public var clientCertificateFile: String { directory.appendingPathComponent("client.pem").path }
  /// The client certificate's key.
  public var clientKeyFile: String { directory.appendingPathComponent("client.key").path }

  /// Starts a stand-in and waits for its ports.
  public static func start() async throws -> APNsStandIn {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "apns-standin-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let process = try await ChildProcess.start(
      URL(fileURLWithPath: "/usr/bin/python3"),
      [PackageRoot.appending("Scripts/apns-standin.py").path, "--dir", directory.path], input: .pipe)
    let line = await process.firstLine()
    guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
      let port = object["port"] as? Int, let control = object["control"] as? Int
    else {
      process.send(SIGKILL)
      let exit = await process.exited()
      try? FileManager.default.removeItem(at: directory)
      throw StandInFailure(message: "the stand-in did not start: \(exit.stderrText)")
    }
    return APNsStandIn(
      port: UInt16(port), controlPort: UInt16(control), directory: directory, process: process)
  }

  /// Ends the process (it exits when its standard input closes) and removes the folder.
  public func stop() async {
    process.closeInput()
    _ = await process.exited()
    try? FileManager.default.removeItem(at: directory)
  }

  /// The counts so far.
  public func stats() async throws -> Stats {
    let object = try await control("GET", "/stats")
    guard let dictionary = object as? [String: Any], let connections = dictionary["connections"] as? Int,
      let streams = dictionary["streams"] as? Int, let requests = dictionary["requests"] as? Int,
      let certificates = dictionary["client_certificates"] as? [String], let jwts = dictionary["jwts"] as? Int
    else { throw StandInFailure(message: "stats: \(object)") }
    return Stats(
      connections: connections, streams: streams, requests: requests, clientCertificates: certificates,
      jwts: jwts)
  }

  /// The APNs requests received so far, in arrival order.
  public func requests() async throws -> [Recorded] {
    guard let list = try await control("GET", "/requests") as? [[String: Any]] else {
      throw StandInFailure(message: "requests")
    }
    return list.map { entry in
      let pairs = (entry["headers"] as? [[String]] ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
      return Recorded(
        path: entry["path"] as? String ?? "", headers: pairs.map { (name: $0.0, value: $0.1) },
        body: entry["body"] as? String ?? "", jwtValid: entry["jwt_valid"] as? Bool)
    }
  }

  /// Scripts the answers for device tokens: `{"<token>": {"status": 410, "reason": "Unregistered"}}`
  /// or `{"<token>": {"stall": true}}`.
  public func script(_ json: String) async throws {
    _ = try await control("POST", "/script", body: Array(json.utf8))
  }

  /// The next APNs request is answered, then its connection gets GOAWAY and is closed.
  public func goAway() async throws {
    _ = try await control("POST", "/goaway", body: Array("{}".utf8))
  }

  /// From now on, every request's bearer JWT must be ES256 by `publicKeyPEM` with exactly
  /// `alg`/`kid` = `keyID` and `iss` = `teamID`/`iat`, else the stand-in answers 403.
  public func trustJWT(keyID: String, teamID: String, publicKeyPEM: String) async throws {
    let body = try JSONSerialization.data(withJSONObject: ["kid": keyID, "iss": teamID, "pem": publicKeyPEM])
    _ = try await control("POST", "/jwt-key", body: Array(body))
  }

  private func control(_ method: String, _ path: String, body: [UInt8]? = nil) async throws -> Any {
    let (status, bytes) = try await LoopbackFetch.send(
      "http://127.0.0.1:\(controlPort)\(path)", method: method, body: body)
    guard status == 200 else { throw StandInFailure(message: "\(method) \(path): \(status)") }
    return try JSONSerialization.jsonObject(with: Data(bytes))
  }
}

/// The stand-in failed to start or answered its control port wrongly.
public struct StandInFailure: Error, CustomStringConvertible {
  /// What went wrong.
  public var message: String
  /// The message.
  public var description: String { message }
}

/// Runs `body` with a started stand-in, stopping it afterwards (also when `body` throws).
public func withAPNsStandIn<T>(_ body: (APNsStandIn) async throws -> T) async throws -> T {
  let standIn = try await APNsStandIn.start()
  do {
    let value = try await body(standIn)
    await standIn.stop()
    return value
  } catch {
    await standIn.stop()
    throw error
  }
}
