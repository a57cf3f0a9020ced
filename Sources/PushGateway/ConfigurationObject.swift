import NostrJSON
import NostrPushCore

/// One JSON object of the gateway configuration with its dotted path, read member by member so
/// that every refusal names the member (`apps[1].alert.body`).
///
/// Unknown members are refused: a misspelt optional member (`relay_pubkey` for `relay_pubkeys`)
/// would otherwise silently leave an allowlist off.
struct ConfigurationObject {
  /// The members.
  let object: JSONObject
  /// The object's path ("" at the top).
  let path: String

  /// `value` as an object at `path` holding only `allowed` members.
  init(_ value: JSONValue, path: String, allowed: Set<String>) throws(PushGatewayConfigurationError) {
    guard let object = value.objectValue else {
      throw PushGatewayConfigurationError(
        code: .invalidField, field: path.isEmpty ? nil : path, message: "must be a JSON object")
    }
    self.object = object
    self.path = path
    for key in object.keys where !allowed.contains(key) {
      throw PushGatewayConfigurationError(
        code: .invalidField, field: field(key), message: "not a member of this object")
    }
  }

  /// The dotted path of member `name`.
  func field(_ name: String) -> String { path.isEmpty ? name : path + "." + name }

  /// The error `message` about member `name`.
  func refuse(_ name: String, _ message: String) -> PushGatewayConfigurationError {
    PushGatewayConfigurationError(code: .invalidField, field: field(name), message: message)
  }

  /// Member `name` as a string of 1 to `maxBytes` UTF-8 bytes; nil when absent.
  func string(_ name: String, maxBytes: Int = 4096) throws(PushGatewayConfigurationError) -> String? {
    guard let value = object[name] else { return nil }
    guard let text = value.stringValue else { throw refuse(name, "must be a string") }
    guard (1...maxBytes).contains(text.utf8.count) else {
      throw refuse(name, "must be 1 to \(maxBytes) bytes")
    }
    return text
  }

  /// Member `name` as a string; refused when absent.
  func requiredString(_ name: String, maxBytes: Int = 4096) throws(PushGatewayConfigurationError) -> String {
    guard let text = try string(name, maxBytes: maxBytes) else { throw refuse(name, "is required") }
    return text
  }

  /// Member `name` as an integer in `range`; nil when absent.
  func integer(_ name: String, in range: ClosedRange<Int64>) throws(PushGatewayConfigurationError) -> Int64? {
    guard let value = object[name] else { return nil }
    guard let number = value.integerValue else { throw refuse(name, "must be an integer") }
    guard range.contains(number) else {
      throw refuse(name, "must be \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  /// Member `name` as an array of at most `maxCount` elements; nil when absent.
  func array(_ name: String, maxCount: Int) throws(PushGatewayConfigurationError) -> [JSONValue]? {
    guard let value = object[name] else { return nil }
    guard let elements = value.arrayValue else { throw refuse(name, "must be an array") }
    guard elements.count <= maxCount else { throw refuse(name, "has more than \(maxCount) elements") }
    return elements
  }

  /// Member `name` as an object holding only `allowed` members; nil when absent.
  func object(_ name: String, allowed: Set<String>) throws(PushGatewayConfigurationError)
    -> ConfigurationObject?
  {
    guard let value = object[name] else { return nil }
    return try ConfigurationObject(value, path: field(name), allowed: allowed)
  }

  /// Member `name` as an object holding exactly one of `choices` (whose value is returned with
  /// its key), as `store` and `auth` are.
  func oneOf(_ name: String, _ choices: Set<String>) throws(PushGatewayConfigurationError)
    -> (key: String, value: JSONValue, path: String)
  {
    guard let inner = try object(name, allowed: choices) else { throw refuse(name, "is required") }
    guard inner.object.count == 1, let key = inner.object.keys.first, let value = inner.object[key] else {
      throw refuse(name, "must hold exactly one of \(choices.sorted().joined(separator: ", "))")
    }
    return (key, value, inner.field(key))
  }
}
