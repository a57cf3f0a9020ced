@_exported import NostrPushCore

/// Why NostrEvent refused an input — an event, a filter, a key, a relay URL — and which field
/// or member was at fault: the module's one error.
///
/// Equality compares `code` and `field` only, so tests and callers match failures without
/// depending on the wording of `message`.
public typealias EventError = DomainError<EventErrorDomain>

/// The error domain of `EventError`: its codes are the static members below.
public enum EventErrorDomain: ErrorDomain {
}

extension ErrorCode where Domain == EventErrorDomain {
  /// Not JSON, not an object, a duplicate member, a lone surrogate, too deep or too large.
  public static var malformedJSON: Self { Self("malformed_json") }
  /// An event field is missing, of the wrong type, out of range or not lowercase hex of the
  /// right length (also a bad secret key or relay URL).
  public static var invalidField: Self { Self("invalid_field") }
  /// A filter member has the wrong JSON type.
  public static var wrongType: Self { Self("wrong_type") }
  /// A filter value is out of range, not lowercase hex of the right length, or a tag key is not
  /// one letter.
  public static var invalidValue: Self { Self("invalid_value") }
  /// A filter list holds more values than `Filter.maxValues`.
  public static var tooMany: Self { Self("too_many") }
}

extension DomainError where Domain == EventErrorDomain {
  static func invalid(_ field: String, _ message: String) -> EventError {
    EventError(code: .invalidField, field: field, message: "\(field): \(message)")
  }
}
