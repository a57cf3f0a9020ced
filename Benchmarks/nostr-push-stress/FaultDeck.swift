import NostrPushTestSupport
import NostrPushTesting

/// Draws random relay faults: every action of `RelayFault`, on every path the resolver uses, for the
/// message query and for each enrichment kind.
enum FaultDeck {
  /// The paths (and, for `/query`, kinds) a fault may target; kind 9 hits the message query.
  static let targets: [(path: String, kind: Int?)] = [
    ("/query", nil), ("/query", 9), ("/query", 0), ("/query", 39000), ("/query", 39002), ("/", nil),
    ("/media/*", nil), ("*", nil),
  ]

  static let bodies: [String] = [
    "[]", "{}", "null", "[1,2,3]", "[{\"id\":1}]", "[\"not an event\"]", "[[[[[[[[[[[[]]]]]]]]]]]]",
    "[{\"id\":\"00\",\"pubkey\":\"zz\",\"created_at\":-1,\"kind\":9,\"tags\":[],\"content\":\"x\",\"sig\":\"\"}]",
    "\u{FEFF}[]", "[" + String(repeating: "{\"a\":", count: 200), "garbage \u{0}\u{1}",
  ]

  static let statuses = [204, 301, 302, 400, 401, 403, 404, 409, 429, 500, 502, 503]

  /// A random fault applying to 1 to 3 matching requests.
  static func draw(_ random: inout SplitMix64) -> RelayFault {
    let target = targets[Int(random.next() % UInt64(targets.count))]
    let times = 1 + Int(random.next() % 3)
    let action: RelayFault.Action
    switch random.next() % 7 {
    case 0: action = .delay(milliseconds: 20 + Int(random.next() % 700))
    case 1: action = .status(statuses[Int(random.next() % UInt64(statuses.count))])
    case 2:
      action = .oversizedBody(
        bytes: (1 + Int(random.next() % 6)) * 1024 * 1024, declaresLength: random.next() % 2 == 0)
    case 3: action = .truncatedBody
    case 4: action = .notJSON
    case 5: action = .closeConnection
    default:
      let body = bodies[Int(random.next() % UInt64(bodies.count))]
      action = .body(
        status: random.next() % 4 == 0 ? 206 : 200,
        contentType: random.next() % 3 == 0 ? "text/html" : "application/json", bytes: Array(body.utf8))
    }
    return RelayFault(path: target.path, kind: target.kind, action: action, times: times)
  }
}
