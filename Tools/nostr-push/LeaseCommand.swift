import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NotificationResolver
import PushDescriptor
import PushLease

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `nostr-push lease build|tombstone|open`: the kind 30350 push lease (`Docs/EnrollingFromAnApp.md`).
///
/// `build` and `tombstone` keep no enrollment (`created_at` = now) and print the signed event,
/// or `{"error":"<code>","message":"…"}` with exit 1, checked in the spec's code order. `open`
/// judges one event from standard input as the relay would.
enum LeaseCommand: CLICommand {
  static let name = "lease"
  static let summary = "build, tombstone or open a kind 30350 push lease"
  static let usage = """
    usage: nostr-push lease build --descriptor FILE --secret-key-file FILE --endpoint GRANT [--app-profile ID]
               --transport apns|fcm --generation N [--d HEX] [--subscriptions FILE | --mentions-only]
               [--channels FILE] [--muted FILE] [--direct-messages] [--now UNIX] [--grant-expires UNIX]
           nostr-push lease tombstone --descriptor FILE --secret-key-file FILE --d HEX --generation N [--now UNIX]
           nostr-push lease open --descriptor FILE --push-secret-key-file FILE [...] --origin ORIGIN
               [--now UNIX] [--skew 120]

    build      prints the signed active lease on one line; without --d, a fresh installation id.
               --app-profile is required for a nip-pl descriptor and refused for buzz-push-v1
               (invalid_app_profile), whose lease names only --transport.
               --channels/--muted: JSON arrays of channel ids for the planner; --subscriptions: a
               JSON array of subscriptions used instead of the planner. --direct-messages adds the
               planner's gift wrap subscription (kinds [1059], #p self) when push_kinds holds 1059.
    tombstone  prints the signed tombstone that revokes the lease at --d.
    open       reads one event on standard input and prints {"accepted":true,"lease":{...}} or
               {"accepted":false,"message":"invalid: ..."}.
    A refused input prints {"error":"<code>","message":"<text>"} and exits 1.
    """

  /// The largest channel or subscriptions file read.
  static let maxListFileBytes = 1024 * 1024
  /// The largest event read by `open`: the CLI's 16 MiB cap on a single document.
  static let maxEventBytes = VerifyCommand.maxDocumentBytes

  static func run(_ arguments: [String]) async throws -> Int32 {
    guard let subcommand = arguments.first else {
      throw UsageError("missing subcommand: build, tombstone or open")
    }
    let rest = Array(arguments.dropFirst())
    let result: Result<[UInt8], CommandFailure>
    switch subcommand {
    case "build": result = try build(rest).mapError(CommandFailure.init)
    case "tombstone": result = try tombstone(rest).mapError(CommandFailure.init)
    case "open": result = try open(rest)
    default: throw UsageError("unknown subcommand '\(subcommand)'")
    }
    switch result {
    case .success(let line):
      CLIOutput.line(bytes: line)
      return ExitCode.success
    case .failure(let failure):
      return failure.print()
    }
  }

  // MARK: build

  private static func build(_ arguments: [String]) throws -> Result<[UInt8], LeaseBuildError> {
    let reader = try ArgumentReader(
      arguments,
      valueFlags: [
        "descriptor", "secret-key-file", "endpoint", "app-profile", "transport", "generation", "d",
        "subscriptions", "channels", "muted", "now", "grant-expires",
      ], booleanFlags: ["mentions-only", "direct-messages"])
    _ = try reader.positionals(atMost: 0)
    let descriptorPath = try reader.required("descriptor")
    let keyPath = try reader.required("secret-key-file")
    let endpoint = try reader.required("endpoint")
    let profileID = reader.value("app-profile")
    let transport = try reader.required("transport")
    let generationText = try reader.required("generation")
    try DescriptorCommand.checkTransport(transport)
    let subscriptionsPath = reader.value("subscriptions")
    if subscriptionsPath != nil,
      reader.has("mentions-only") || reader.has("direct-messages") || reader.value("channels") != nil
        || reader.value("muted") != nil
    {
      throw UsageError(
        "--subscriptions replaces the planner: no --mentions-only, --direct-messages, --channels or --muted with it"
      )
    }
    let now = try reader.integer("now") ?? UnixClock.system.now()
    let grantExpiresAt = try reader.integer("grant-expires")

    return Result { () throws(LeaseBuildError) in
      let descriptor = try loadDescriptor(descriptorPath)
      let key = try secretKey(keyPath)
      let builder = Self.builder(descriptor, appProfile: profileID, transport: transport)
      _ = try builder.checkRequest(endpoint: endpoint)
      let generation = try generation(generationText, builder: builder)
      let installationID = try installationID(reader.value("d")) ?? InstallationID.generate()
      let subscriptions: JSONValue
      if let subscriptionsPath {
        subscriptions = try subscriptionsFile(subscriptionsPath)
      } else {
        let planner = SubscriptionPlanner(descriptor: descriptor)
        let plan = try planner.plan(
          for: key.publicKeyHex, joined: try channelFile(reader.value("channels"), flag: "channels"),
          muted: try channelFile(reader.value("muted"), flag: "muted"),
          mentionsOnly: reader.has("mentions-only"), directMessages: reader.has("direct-messages"))
        subscriptions = .array(plan.map(\.jsonValue))
      }
      let event = try builder.active(
        endpoint: endpoint, subscriptionsJSON: subscriptions, generation: generation, createdAt: now,
        installationID: installationID, grantExpiresAt: grantExpiresAt, now: now, signer: key)
      return event.jsonBytes()
    }
  }

  /// The builder for the descriptor's generation: `nip-pl` with the app profile (nil when
  /// `--app-profile` is absent, which the builder refuses), `buzz-push-v1` with the transport,
  /// or with the profile when one was given, so the builder refuses it before signing.
  static func builder(_ descriptor: PushDescriptor, appProfile: String?, transport: String) -> LeaseBuilder {
    if descriptor.pushProtocol == .buzzPushV1, appProfile == nil {
      return LeaseBuilder(descriptor: descriptor, transport: transport)
    }
    return LeaseBuilder(
      descriptor: descriptor, appProfile: appProfile.map { PushAppProfile(id: $0, transport: transport) })
  }

  // MARK: tombstone

  private static func tombstone(_ arguments: [String]) throws -> Result<[UInt8], LeaseBuildError> {
    let reader = try ArgumentReader(
      arguments, valueFlags: ["descriptor", "secret-key-file", "d", "generation", "now"])
    _ = try reader.positionals(atMost: 0)
    let descriptorPath = try reader.required("descriptor")
    let keyPath = try reader.required("secret-key-file")
    let dText = try reader.required("d")
    let generationText = try reader.required("generation")
    let now = try reader.integer("now") ?? UnixClock.system.now()

    return Result { () throws(LeaseBuildError) in
      let descriptor = try loadDescriptor(descriptorPath)
      let key = try secretKey(keyPath)
      let builder = LeaseBuilder(descriptor: descriptor)
      let generation = try generation(generationText, builder: builder)
      guard let installationID = try installationID(dText) else { preconditionFailure("--d is required") }
      let event = try builder.tombstone(
        installationID: installationID, generation: generation, createdAt: now, now: now, signer: key)
      return event.jsonBytes()
    }
  }

  // MARK: open

  private static func open(_ arguments: [String]) throws -> Result<[UInt8], CommandFailure> {
    let reader = try ArgumentReader(
      arguments, valueFlags: ["descriptor", "push-secret-key-file", "origin", "now", "skew"],
      repeatableFlags: ["push-secret-key-file"])
    _ = try reader.positionals(atMost: 0)
    let descriptorPath = try reader.required("descriptor")
    let keyPaths = reader.all("push-secret-key-file")
    guard !keyPaths.isEmpty else { throw UsageError("--push-secret-key-file is required") }
    let origin = try reader.required("origin")
    let now = try reader.integer("now") ?? UnixClock.system.now()
    let skew = try reader.integer("skew", default: LeaseValidator.defaultAllowedSkew)!

    return Result { () throws(CommandFailure) in
      let validator = try CommandFailure.reporting { () throws(LeaseBuildError) -> LeaseValidator in
        try openValidator(descriptorPath, keyPaths: keyPaths, skew: skew)
      }
      let input: [UInt8]
      do throws(InputError) {
        input = try CommandInput.readWhole(STDIN_FILENO, limit: maxEventBytes)
      } catch {
        throw CommandFailure("malformed_json", error.message)
      }
      let verified = input.withUnsafeBytes { VerifyCommand.verifiedEvent($0) }
      let event: Event
      switch verified {
      case .success(let (parsed, _)): event = parsed
      case .failure(let failure): throw CommandFailure(failure.code, failure.message)
      }
      do throws(LeaseRejection) {
        let lease = try validator.open(event, tenantOrigin: origin, now: now)
        return JSONWriter.bytes(
          .object(JSONObject(["accepted": .bool(true), "lease": leaseValue(lease)])))
      } catch {
        return JSONWriter.bytes(
          .object(JSONObject(["accepted": .bool(false), "message": .string(error.message)])))
      }
    }
  }

  /// The validator of `open`: the descriptor at `descriptorPath` with the push keys at `keyPaths`.
  private static func openValidator(_ descriptorPath: String, keyPaths: [String], skew: Int64)
    throws(LeaseBuildError) -> LeaseValidator
  {
    let descriptor = try loadDescriptor(descriptorPath)
    var keys: [String: SecretKey] = [:]
    var unmatched: [String] = []
    for path in keyPaths {
      let key = try secretKey(path)
      if let entry = descriptor.keys.first(where: { $0.pubkey == key.publicKeyHex }) {
        keys[entry.id] = key
      } else {
        unmatched.append(path)
      }
    }
    if let path = unmatched.first {
      throw LeaseBuildError(
        code: .unknownPushKey, message: "the key in \(path) is not a key of the descriptor")
    }
    return try LeaseValidator(descriptor: descriptor, pushKeys: keys, allowedSkew: skew)
  }

  /// The `lease` object of an accepted `open`, keys in the spec's order; a tombstone's request
  /// members are null, and so is a `buzz-push-v1` lease's `app_profile`.
  static func leaseValue(_ lease: OpenedLease) -> JSONValue {
    var members: [JSONMember] = [
      JSONMember(key: "address", value: .string(lease.address.description)),
      JSONMember(key: "pubkey", value: .string(lease.address.pubkey)),
      JSONMember(key: "d", value: .string(lease.address.d)),
      JSONMember(key: "event_id", value: .string(lease.eventID)),
      JSONMember(key: "created_at", value: .integer(lease.createdAt)),
      JSONMember(key: "expiration", value: .integer(lease.expiration)),
      JSONMember(key: "key_id", value: .string(lease.keyID)),
      JSONMember(key: "origin", value: .string(lease.origin)),
      JSONMember(key: "generation", value: .integer(lease.generation)),
      JSONMember(key: "active", value: .bool(lease.isActive)),
    ]
    switch lease.state {
    case .active(let appProfile, let transport, let endpoint, let endpointHash, let subscriptions):
      members += [
        JSONMember(key: "app_profile", value: appProfile.map(JSONValue.string) ?? .null),
        JSONMember(key: "transport", value: .string(transport)),
        JSONMember(key: "endpoint", value: .string(endpoint)),
        JSONMember(key: "endpoint_hash", value: .string(endpointHash)),
        JSONMember(key: "subscriptions", value: .array(subscriptions.map(\.openedJSONValue))),
      ]
    case .tombstone:
      for key in ["app_profile", "transport", "endpoint", "endpoint_hash", "subscriptions"] {
        members.append(JSONMember(key: key, value: .null))
      }
    }
    return .object(JSONObject(members))
  }

  // MARK: Inputs, each failure its code

  private static func loadDescriptor(_ path: String) throws(LeaseBuildError) -> PushDescriptor {
    let bytes: [UInt8]
    do {
      bytes = try DescriptorCommand.readDocument(path)
    } catch {
      throw LeaseBuildError(code: .invalidDescriptor, field: "descriptor", message: error.message)
    }
    do {
      return try RelayDocument(bytes: bytes).push
    } catch {
      throw LeaseBuildError(code: .invalidDescriptor, field: error.field, message: error.description)
    }
  }

  static func secretKey(_ path: String) throws(LeaseBuildError) -> SecretKey {
    do {
      return try SecretKeyFile.read(path)
    } catch {
      throw LeaseBuildError(code: .invalidSecretKey, field: "secret_key_file", message: "\(path): \(error)")
    }
  }

  private static func generation(_ text: String, builder: LeaseBuilder) throws(LeaseBuildError) -> Int64 {
    guard let number = Int64(text) else {
      throw LeaseBuildError(
        code: .invalidGeneration, field: "generation",
        message: "--generation must be an integer, got '\(text)'")
    }
    try builder.checkGeneration(number)
    return number
  }

  /// The `--d` installation id; nil when the flag is absent.
  private static func installationID(_ text: String?) throws(LeaseBuildError) -> InstallationID? {
    guard let text else { return nil }
    guard let id = InstallationID(rawValue: text) else {
      throw LeaseBuildError(
        code: .invalidInstallationID, field: "d",
        message: "--d must be 32 lowercase hex characters, got '\(text)'")
    }
    return id
  }

  /// A `--channels`/`--muted` file: a JSON array of strings (the planner checks each id).
  static func channelFile(_ path: String?, flag: String) throws(LeaseBuildError) -> [String] {
    guard let path else { return [] }
    let value = try jsonFile(path, what: "\(flag) file", code: .invalidChannelID)
    guard case .array(let items) = value else {
      throw LeaseBuildError(
        code: .invalidChannelID, field: flag, message: "--\(flag) must hold a JSON array of channel ids")
    }
    var ids: [String] = []
    for (index, item) in items.enumerated() {
      guard case .string(let id) = item else {
        throw LeaseBuildError(
          code: .invalidChannelID, field: "\(flag)[\(index)]",
          message: "\(flag)[\(index)] is a \(item.typeName), not a channel id")
      }
      ids.append(id)
    }
    return ids
  }

  /// The `--subscriptions` file as JSON; the builder checks it as the validator would.
  private static func subscriptionsFile(_ path: String) throws(LeaseBuildError) -> JSONValue {
    try jsonFile(path, what: "subscriptions file", code: .invalidSubscriptions)
  }

  private static func jsonFile(
    _ path: String, what: String, code: LeaseBuildError.Code
  ) throws(LeaseBuildError) -> JSONValue {
    let bytes: [UInt8]
    do {
      bytes = try BoundedFile.bytes(path, maxBytes: maxListFileBytes, what: what)
    } catch {
      throw LeaseBuildError(code: code, field: what, message: "\(error)")
    }
    do {
      return try JSONReader().read(bytes)
    } catch {
      throw LeaseBuildError(code: code, field: what, message: "the \(what) is not JSON: \(error.description)")
    }
  }
}
