import Foundation
import NostrEvent

/// The `request_id` of one wake: a lowercase UUID v4 made at enqueue and sent on every attempt.
///
/// The gateway uses it as the APNs `apns-id` and to refuse a second delivery, so it is made once
/// per outbox row, never per attempt. The gateway fixture checks requests with `isValid(_:)`.
package enum WakeRequestID {
  /// A fresh id from the system generator (`UUID()`), lowercase.
  package static func generate() -> String {
    UUID().uuidString.lowercased()
  }

  /// Whether `text` is a lowercase UUID v4 (`LowercaseUUID`, the package's one check).
  package static func isValid(_ text: String) -> Bool { LowercaseUUID.isValidV4(text) }
}
