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
  init(_ error: some NostrPushError) { self.init(error.code.rawValue, error.message) }

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
