import NostrHTTP

/// Why a request to the relay gave nothing usable, already in the terms of a fallback reason.
package struct RelayFailure: Error, Sendable, Hashable {
  /// The fallback reason this failure reports.
  package var reason: FallbackReason
  /// A human-readable detail (never content or credentials).
  package var message: String

  /// Creates a failure.
  package init(_ reason: FallbackReason, _ message: String) {
    self.reason = reason
    self.message = message
  }

  /// The failure for a transport error.
  init(_ error: HTTPTransportError) {
    switch error.code {
    case .unreachable, .invalidURL: self.init(.relayUnreachable, error.message)
    case .timeout, .cancelled: self.init(.timeout, error.message)
    case .tooLarge, .truncated: self.init(.invalidResponse, error.message)
    default: self.init(.relayUnreachable, error.description)
    }
  }

  package static func == (lhs: RelayFailure, rhs: RelayFailure) -> Bool { lhs.reason == rhs.reason }
  package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
}
