/// Why a relay URL was refused: the error of `RelayOrigin`, the one parser of relay URLs.
///
/// Its one code is `invalid_field`, with field `relay`, as the command line prints it.
public typealias RelayOriginError = DomainError<RelayOriginErrorDomain>

/// The error domain of `RelayOriginError`.
public enum RelayOriginErrorDomain: ErrorDomain {
}

extension ErrorCode where Domain == RelayOriginErrorDomain {
  /// The URL is not a `ws`, `wss`, `http` or `https` URL with a valid host and port, or it has a
  /// path, query, fragment or userinfo where a relay URL has none.
  public static var invalidField: Self { Self("invalid_field") }
}

extension DomainError where Domain == RelayOriginErrorDomain {
  /// A refusal of the field `field`, its message prefixed with the field's name.
  static func invalid(_ field: String, _ message: String) -> RelayOriginError {
    RelayOriginError(code: .invalidField, field: field, message: "\(field): \(message)")
  }
}
