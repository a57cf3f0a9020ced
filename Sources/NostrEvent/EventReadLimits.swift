/// Bounds on what one answer of events may make a reader materialise: an element over a bound
/// is dropped while it is read, before any `Event`, tag array or string is built, so an answer
/// that keeps within its byte cap cannot cost more memory than these bounds allow.
package struct EventReadLimits: Sendable, Hashable {
  /// The most tags one event may have.
  package var maxTagsPerEvent: Int
  /// The most strings one tag may hold.
  package var maxTagElements: Int
  /// The longest string (the content, or one tag element), in bytes as written (escapes
  /// included).
  package var maxStringBytes: Int
  /// The most tags one answer materialises in all; events past it are dropped whole.
  package var maxTotalTags: Int
  /// The largest element (in bytes) read through the general JSON reader when it is not in the
  /// fast reader's common shape; a larger one is dropped.
  package var maxGeneralElementBytes: Int

  /// The notification extension's bounds (`Docs/NotificationServiceExtension.md`): 2 000 tags an event,
  /// 16 elements a tag, 64 KiB a string, 20 000 tags an answer.
  package static let notification = EventReadLimits(
    maxTagsPerEvent: 2000, maxTagElements: 16, maxStringBytes: 64 * 1024, maxTotalTags: 20_000,
    maxGeneralElementBytes: 64 * 1024)

  /// Creates limits.
  package init(
    maxTagsPerEvent: Int, maxTagElements: Int, maxStringBytes: Int, maxTotalTags: Int,
    maxGeneralElementBytes: Int
  ) {
    self.maxTagsPerEvent = maxTagsPerEvent
    self.maxTagElements = maxTagElements
    self.maxStringBytes = maxStringBytes
    self.maxTotalTags = maxTotalTags
    self.maxGeneralElementBytes = maxGeneralElementBytes
  }

  /// These limits with `maxTags` tags allowed per event and in all (a roster's answer: one event
  /// of many `p` tags, bounded by its byte cap).
  package func with(maxTags: Int) -> EventReadLimits {
    var limits = self
    limits.maxTagsPerEvent = maxTags
    limits.maxTotalTags = maxTags
    return limits
  }

  /// Whether a materialised event keeps within the per-event bounds.
  package func admits(_ event: Event) -> Bool {
    guard event.tags.count <= maxTagsPerEvent, event.content.utf8.count <= maxStringBytes else {
      return false
    }
    return event.tags.allSatisfy { tag in
      tag.count <= maxTagElements && tag.allSatisfy { $0.utf8.count <= maxStringBytes }
    }
  }
}
