import Foundation

/// Standard output and standard error for the CLI, unbuffered per line so that JSON Lines reach
/// a reading script as soon as each is complete.
enum CLIOutput {
  /// Writes `text` and a newline to standard output.
  static func line(_ text: String) {
    write(text + "\n", to: FileHandle.standardOutput)
  }

  /// Writes raw bytes followed by a newline to standard output.
  static func line(bytes: [UInt8]) {
    var bytes = bytes
    bytes.append(0x0A)
    FileHandle.standardOutput.write(Data(bytes))
  }

  /// Writes `text` and a newline to standard error.
  static func error(_ text: String) {
    write(text + "\n", to: FileHandle.standardError)
  }

  private static func write(_ text: String, to handle: FileHandle) {
    handle.write(Data(text.utf8))
  }
}
