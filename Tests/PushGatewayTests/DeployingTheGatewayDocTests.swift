import AppAttest
import Foundation
import NostrPushTestSupport
import PushGateway
import Testing

/// `Docs/DeployingTheGateway.md` quotes a configuration, an nginx and a Caddy block: each is parsed
/// (the JSON by the gateway's own reader, the proxy blocks by their grammar's structure) and they
/// must agree with each other — the proxies serve `public_url`'s host and pass to `listen`, never
/// to `admin_listen`.
@Suite struct DeployingTheGatewayDocTests {
  static func blocks(_ language: String) throws -> [String] {
    let text = try String(contentsOf: PackageRoot.appending("Docs/DeployingTheGateway.md"), encoding: .utf8)
    var blocks: [String] = []
    var current: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line == "```" + language {
        current = []
      } else if current != nil, line == "```" {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  /// The quoted configuration, read by `PushGatewayConfiguration` from a folder holding the files
  /// it names (a fresh sealing key and an EC P-256 p8 key, both 0600).
  static func configuration() async throws -> PushGatewayConfiguration {
    let json = try #require(try blocks("json").first)
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let p8 = try #require(
      ((object["apps"] as? [[String: Any]])?.first?["auth"] as? [String: [String: String]])?["token"]?[
        "key_file"])
    try FileManager.default.copyItem(atPath: files.path("AuthKey.p8"), toPath: files.path(p8))
    try files.write("config.json", json, mode: 0o644)
    return try PushGatewayConfiguration(contentsOf: files.path("config.json"))
  }

  @Test func theQuotedConfigurationIsValid() async throws {
    let configuration = try await Self.configuration()
    #expect(configuration.apps.count == 1)
    #expect(configuration.listen != configuration.adminListen)
  }

  /// The quoted `app_attest` value (the second JSON block), set on the quoted configuration's app,
  /// parses to Apple's pinned root for that app id and environment.
  @Test func theQuotedAppAttestBlockIsValid() async throws {
    let blocks = try Self.blocks("json")
    try #require(blocks.count == 2)
    let files = try await GatewayConfigurationFiles.make()
    defer { files.remove() }
    var object = try #require(try JSONSerialization.jsonObject(with: Data(blocks[0].utf8)) as? [String: Any])
    var app = try #require((object["apps"] as? [[String: Any]])?.first)
    app["app_attest"] = try JSONSerialization.jsonObject(with: Data(blocks[1].utf8))
    app["auth"] = ["token": ["key_file": "AuthKey.p8", "key_id": "ABC123DEFG", "team_id": "TEAM123456"]]
    object["apps"] = [app]
    let configuration = try PushGatewayConfiguration(contentsOf: try files.configFile(object))
    let appAttest = try #require(configuration.apps.first?.appAttest)
    #expect(appAttest.appID.description == "TEAM123456.org.example.chat")
    #expect(appAttest.environment == .production)
    #expect(appAttest.rootFile == nil)
  }

  @Test func theNginxBlockServesThePublicHostAndPassesOnlyToListen() async throws {
    let configuration = try await Self.configuration()
    let nginx = try NginxConfig(try #require(try Self.blocks("nginx").first))
    let server = try #require(nginx.root.blocks("server").first)
    let host = String(configuration.publicURL.dropFirst("https://".count))
    #expect(server.values("server_name") == [[host]])
    #expect(server.values("listen").first?.contains("ssl") == true)
    #expect(server.values("ssl_certificate").count == 1 && server.values("ssl_certificate_key").count == 1)
    let bodyCap = try #require(server.values("client_max_body_size").first?.first)
    #expect(bodyCap == "8k", "the routes' bodies are at most 8192 bytes")
    let routes = try #require(server.blocks("location").first { $0.arguments == ["/v1/"] })
    #expect(routes.values("proxy_pass") == [["http://\(configuration.listen)"]])
    let zone = try #require(nginx.root.values("limit_req_zone").first)
    #expect(
      routes.values("limit_req").first?.first == "zone="
        + (zone.first { $0.hasPrefix("zone=") } ?? "").dropFirst(5).prefix { $0 != ":" })
    let everything = nginx.root.allValues.joined(separator: " ")
    #expect(!everything.contains(":\(configuration.adminListen.port)"), "the admin listener is never proxied")
  }

  @Test func theCaddyBlockServesThePublicHostAndPassesOnlyToListen() async throws {
    let configuration = try await Self.configuration()
    let caddy = try NginxConfig(try #require(try Self.blocks("caddy").first), statementsEndAtNewline: true)
    let host = String(configuration.publicURL.dropFirst("https://".count))
    let site = try #require(caddy.root.blocks(host).first)
    #expect(site.blocks("request_body").first?.values("max_size") == [["8KB"]])
    let routes = try #require(site.blocks("handle").first { $0.arguments == ["/v1/*"] })
    #expect(routes.values("reverse_proxy") == [[configuration.listen.description]])
    #expect(!caddy.root.allValues.joined(separator: " ").contains(":\(configuration.adminListen.port)"))
  }
}

/// A parser of nginx's configuration grammar (directives `name args…;`, blocks `name args… { … }`,
/// `#` comments, quoted strings); with `statementsEndAtNewline`, a line ends a directive, as in a
/// Caddyfile. Unbalanced braces, a directive left open or an empty name are errors.
struct NginxConfig {
  struct Directive {
    let name: String
    let arguments: [String]
    let children: [Directive]?
  }

  struct Block {
    let arguments: [String]
    let directives: [Directive]

    func values(_ name: String) -> [[String]] {
      directives.filter { $0.name == name && $0.children == nil }.map(\.arguments)
    }

    func blocks(_ name: String) -> [Block] {
      directives.compactMap { directive in
        guard directive.name == name, let children = directive.children else { return nil }
        return Block(arguments: directive.arguments, directives: children)
      }
    }

    var allValues: [String] {
      directives.flatMap {
        [$0.name] + $0.arguments + Block(arguments: [], directives: $0.children ?? []).allValues
      }
    }
  }

  struct Malformed: Error {
    let reason: String
  }

  let root: Block

  init(_ text: String, statementsEndAtNewline: Bool = false) throws {
    var tokens: [String] = []
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "#" {
        index = text[index...].firstIndex(of: "\n") ?? text.endIndex
      } else if character == "\n" {
        if statementsEndAtNewline { tokens.append(";") }
        index = text.index(after: index)
      } else if character.isWhitespace {
        index = text.index(after: index)
      } else if character == "{" || character == "}" || character == ";" {
        tokens.append(String(character))
        index = text.index(after: index)
      } else if character == "\"" {
        let start = text.index(after: index)
        guard let end = text[start...].firstIndex(of: "\"") else { throw Malformed(reason: "open quote") }
        tokens.append(String(text[start..<end]))
        index = text.index(after: end)
      } else {
        let end = text[index...].firstIndex { $0.isWhitespace || "{};\"".contains($0) } ?? text.endIndex
        tokens.append(String(text[index..<end]))
        index = end
      }
    }
    var position = 0
    func parse(nested: Bool) throws -> [Directive] {
      var directives: [Directive] = []
      var words: [String] = []
      while position < tokens.count {
        let token = tokens[position]
        position += 1
        switch token {
        case ";":
          if let name = words.first {
            directives.append(Directive(name: name, arguments: Array(words.dropFirst()), children: nil))
          } else if !statementsEndAtNewline {
            throw Malformed(reason: "empty directive")
          }
          words = []
        case "{":
          guard let name = words.first else { throw Malformed(reason: "a block without a name") }
          directives.append(
            Directive(name: name, arguments: Array(words.dropFirst()), children: try parse(nested: true)))
          words = []
        case "}":
          guard nested, words.isEmpty else {
            throw Malformed(reason: "unbalanced } or a directive left open")
          }
          return directives
        default:
          words.append(token)
        }
      }
      guard !nested, words.isEmpty else { throw Malformed(reason: "unclosed block or directive") }
      return directives
    }
    root = Block(arguments: [], directives: try parse(nested: false))
  }
}
