/// Splits a command's arguments into flags and positionals, refusing unknown flags.
///
/// Flags are `--name value` (or `--name=value`); `booleanFlags` take no value; a flag listed in
/// `repeatableFlags` may appear more than once. A lone `-` is a positional (standard input).
struct ArgumentReader {
  private(set) var values: [String: [String]] = [:]
  private(set) var switches: Set<String> = []
  private(set) var positionals: [String] = []

  init(
    _ arguments: [String], valueFlags: Set<String>, booleanFlags: Set<String> = [],
    repeatableFlags: Set<String> = []
  ) throws {
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      guard argument.hasPrefix("--"), argument.count > 2 else {
        positionals.append(argument)
        continue
      }
      var name = String(argument.dropFirst(2))
      var inlineValue: String? = nil
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if booleanFlags.contains(name) {
        guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
        switches.insert(name)
        continue
      }
      guard valueFlags.contains(name) else { throw UsageError("unknown option --\(name)") }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else {
        guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
        value = arguments[index]
        index += 1
      }
      if values[name] != nil && !repeatableFlags.contains(name) {
        throw UsageError("--\(name) given more than once")
      }
      values[name, default: []].append(value)
    }
  }

  /// The value of a flag given at most once.
  func value(_ name: String) -> String? { values[name]?.first }

  /// Every value of a repeatable flag, in order.
  func all(_ name: String) -> [String] { values[name] ?? [] }

  /// Whether a boolean flag was given.
  func has(_ name: String) -> Bool { switches.contains(name) }

  /// The value of a required flag.
  func required(_ name: String) throws -> String {
    guard let value = value(name) else { throw UsageError("--\(name) is required") }
    return value
  }

  /// The value of an integer flag, or `defaultValue` when it is absent.
  func integer(_ name: String, default defaultValue: Int64? = nil) throws -> Int64? {
    guard let text = value(name) else { return defaultValue }
    guard let number = Int64(text) else { throw UsageError("--\(name) must be an integer, got '\(text)'") }
    return number
  }

  /// At most `count` positionals; throws a usage error for more.
  func positionals(atMost count: Int) throws -> [String] {
    guard positionals.count <= count else {
      throw UsageError("unexpected argument '\(positionals[count])'")
    }
    return positionals
  }
}
