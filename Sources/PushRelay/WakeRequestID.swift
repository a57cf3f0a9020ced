import Foundation

/// The `request_id` of one wake: a lowercase UUID v4 made at enqueue and sent on every attempt.
///
/// The gateway uses it as the APNs `apns-id` and to refuse a second delivery, so it is made once
/// per outbox row, never per attempt. The gateway fixture checks requests with `isValid(_:)`.
public enum WakeRequestID {
  /// A fresh id from the system generator (`UUID()`), lowercase.
  public static func generate() -> String {
    UUID().uuidString.lowercased()
  }

  /// Whether `text` is `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx` in lowercase hex.
  public static func isValid(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.count == 36 else { return false }
    for (offset, byte) in bytes.enumerated() {
      switch offset {
      case 8, 13, 18, 23:
        guard byte == UInt8(ascii: "-") else { return false }
      case 14:
        guard byte == UInt8(ascii: "4") else { return false }
      case 19:
        guard "89ab".utf8.contains(byte) else { return false }
      default:
        guard
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        else { return false }
      }
    }
    return true
  }
}
