import Foundation
import NostrCurlHTTP
import NostrHTTPServer
import NostrPushCore
import PushGateway
import PushGatewayPostgres

// A gateway process for the multi-process tests: a PushGateway on a PostgreSQL database behind
// the public origin https://push.example.org, sending to an APNs stand-in with its client
// certificate, served on a loopback port it prints ("port N"), until it is killed.
//
// PushGatewayHelper CONNINFO KEYHEX APNS_ORIGIN CA_FILE CERT_FILE KEY_FILE IN_FLIGHT_SECONDS
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 7, let inFlight = Int64(arguments[6]) else {
  FileHandle.standardError.write(
    Data(
      "usage: PushGatewayHelper CONNINFO KEYHEX APNS_ORIGIN CA_FILE CERT_FILE KEY_FILE IN_FLIGHT_SECONDS\n"
        .utf8))
  exit(2)
}
do {
  let store = try PostgresPushGatewayStore(connectionString: arguments[0])
  let keys = try PushGatewayKeys(current: PushGatewaySealingKey(keyFileText: arguments[1]))
  let http = try CurlHTTPClient(
    caFile: arguments[3],
    clientCertificate: CurlClientCertificate(certificateFile: arguments[4], keyFile: arguments[5]))
  let app = try APNsApp(
    topic: "org.example.chat", environment: .production, credential: .certificate, alertTitle: "Chat",
    alertBody: "New activity")
  let gateway = try PushGateway(
    publicURL: "https://push.example.org", store: store, keys: keys,
    apps: ["chat": APNsClient(app: app, transport: CurlAPNsTransport(client: http, origin: arguments[2]))],
    quotaPer10Seconds: 100_000, quotaPerHour: 100_000, apnsTimeout: .seconds(20), inFlightSeconds: inFlight)
  let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter(gateway.routes))
  FileHandle.standardOutput.write(Data("port \(server.port)\n".utf8))
  while true { try await Task.sleep(for: .seconds(3600)) }
} catch {
  FileHandle.standardError.write(Data("PushGatewayHelper: \(error)\n".utf8))
  exit(1)
}
