import Foundation

/// The `nostr-push` entry point: finds the command and hands it the rest of the arguments.
@main
enum NostrPush {
  /// Every command, in the order `--help` lists them.
  static let commands: [any CLICommand.Type] = [
    VerifyCommand.self,
    Nip19Command.self,
    DescriptorCommand.self,
    RelayCommand.self,
    DoctorCommand.self,
    GatewayCommand.self,
    CacheCommand.self,
    ResolveCommand.self,
    Nip44Command.self,
    PublishCommand.self,
    QueryCommand.self,
    LeaseCommand.self,
    EnrollCommand.self,
    RevokeCommand.self,
    DirectMessageCommand.self,
    AttestCommand.self,
    DemoCommand.self,
  ]

  static func main() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    exit(await run(arguments))
  }

  static func run(_ arguments: [String]) async -> Int32 {
    guard let name = arguments.first else {
      CLIOutput.error(usage)
      return ExitCode.usage
    }
    if name == "--help" || name == "-h" || name == "help" {
      CLIOutput.line(usage)
      return ExitCode.success
    }
    guard let command = commands.first(where: { $0.name == name }) else {
      CLIOutput.error("nostr-push: unknown command '\(name)'\n\n\(usage)")
      return ExitCode.usage
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      CLIOutput.line(command.usage)
      return ExitCode.success
    }
    do {
      return try await command.run(rest)
    } catch let error as UsageError {
      CLIOutput.error("nostr-push \(name): \(error.message)\n\n\(command.usage)")
      return ExitCode.usage
    } catch {
      CLIOutput.error("nostr-push \(name): \(error)")
      return ExitCode.failure
    }
  }

  static var usage: String {
    var text = "usage: nostr-push <command> [options]\n\ncommands:\n"
    for command in commands {
      text += "  \(command.name.padding(toLength: 11, withPad: " ", startingAt: 0))\(command.summary)\n"
    }
    text += "\nRun 'nostr-push <command> --help' for a command's options."
    return text
  }
}
