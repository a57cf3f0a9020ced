import NostrJSON
import NostrPushCore

/// A command's failure as its `{"error":<code>,"message":…}` line (exit status 1): the
/// snake_case code and the message. `enroll`, `revoke`, `publish` and `query` report through it.
struct CommandFailure: Error {
  let code: String
  let message: String

  init(_ code: String, _ message: String) {
    self.code = code
    self.message = message
  }

  /// A library error under its own code and message.
  init(_ error: some NostrPushError) { self.init(error.code.description, error.message) }

  /// The `{"error":<code>,"message":…}` line, without its newline.
  var line: [UInt8] {
    JSONWriter.bytes(.object(JSONObject(["error": .string(code), "message": .string(message)])))
  }

  /// Prints the line to standard output; returns exit status 1.
  func print() -> Int32 {
    CLIOutput.line(bytes: line)
    return ExitCode.failure
  }

  /// Runs `body`, reporting a library error under its own code.
  static func reporting<T, Failure: NostrPushError>(_ body: () throws(Failure) -> T) throws(CommandFailure)
    -> T
  {
    do {
      return try body()
    } catch {
      throw CommandFailure(error)
    }
  }
}
