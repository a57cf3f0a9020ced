/// The push protocol generation a relay speaks, read from its `supported_extensions`.
///
/// The two generations share the envelope, tags, tombstone and matching; they differ in the
/// `push` members (only `nip-pl` has `app_profiles` and `urgent_kinds`) and in the active lease
/// plaintext (only `nip-pl` carries `app_profile`). A client picks the builder's inputs by
/// `PushDescriptor.pushProtocol`: an app profile for `nip-pl`, a transport for `buzz-push-v1`.
public enum PushProtocol: String, Sendable, Hashable, CaseIterable {
  /// `nip-pl`: several apps per relay, each named by an app profile in the descriptor and lease.
  case nipPL = "nip-pl"
  /// `buzz-push-v1`: one app per gateway, no app profile anywhere; the lease's transport is a
  /// key of `class_support`.
  case buzzPushV1 = "buzz-push-v1"

  /// The members of a `push` object of this generation, in the order they are written; only
  /// `urgent_kinds` is optional.
  package var memberNames: [String] {
    switch self {
    case .nipPL:
      [
        "origin", "keys", "app_profiles", "push_kinds", "urgent_kinds", "h_grammar", "class_support",
        "limitation",
      ]
    case .buzzPushV1: ["origin", "keys", "push_kinds", "h_grammar", "class_support", "limitation"]
    }
  }

  /// The members of `memberNames` a valid `push` object must have.
  package var requiredMemberNames: [String] { memberNames.filter { $0 != "urgent_kinds" } }
}
