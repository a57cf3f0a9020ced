@_exported import NostrPushCore

/// Why `PushLease` could not build a lease or set up a validator, before anything was signed.
///
/// The codes are the ones `nostr-push lease` prints, in the CLI's check order. It is the
/// package's `NostrPushError`: equality and hashing use `code` and `field` only, so a test
/// matches a failure without its wording.
public typealias LeaseBuildError = DomainError<LeaseBuildErrorDomain>

/// The error domain of `LeaseBuildError`: its codes are the static members below.
public enum LeaseBuildErrorDomain: ErrorDomain {
}

extension ErrorCode where Domain == LeaseBuildErrorDomain {
  /// The NIP-11 document holds no valid push descriptor (CLI only).
  public static var invalidDescriptor: Self { Self("invalid_descriptor") }
  /// The secret key file is unreadable, not 64 hex or `nsec1…`, or not a valid scalar (CLI only).
  public static var invalidSecretKey: Self { Self("invalid_secret_key") }
  /// The app profile is not advertised with that transport, or is longer than `max_string_len`.
  public static var invalidAppProfile: Self { Self("invalid_app_profile") }
  /// The endpoint grant is empty or longer than `max_endpoint_len` bytes.
  public static var invalidEndpoint: Self { Self("invalid_endpoint") }
  /// The generation is outside 1…2^53−1.
  public static var invalidGeneration: Self { Self("invalid_generation") }
  /// The installation id is not 32 lowercase hex characters.
  public static var invalidInstallationID: Self { Self("invalid_installation_id") }
  /// A joined or muted channel id is not a lowercase UUID v4.
  public static var invalidChannelID: Self { Self("invalid_channel_id") }
  /// The muted channels need more ignore filters than the relay allows.
  public static var tooManyMutedChannels: Self { Self("too_many_muted_channels") }
  /// The plan needs more subscriptions than the relay allows.
  public static var tooManySubscriptions: Self { Self("too_many_subscriptions") }
  /// The plaintext would be rejected by the relay's validator; the message is its full text.
  public static var invalidSubscriptions: Self { Self("invalid_subscriptions") }
  /// The lease would expire at or before `now` (the grant has run out).
  public static var grantExpired: Self { Self("grant_expired") }
  /// The plaintext is longer than `max_plaintext_len` bytes (or than NIP-44 can carry).
  public static var plaintextTooLong: Self { Self("plaintext_too_long") }
  /// The encrypted content is longer than `max_content_len` bytes.
  public static var contentTooLong: Self { Self("content_too_long") }
  /// `created_at` is outside 0…2^53−1, so the event cannot be signed.
  public static var invalidCreatedAt: Self { Self("invalid_created_at") }
  /// A push secret key names no descriptor key (or none was given): the validator cannot open leases.
  public static var unknownPushKey: Self { Self("unknown_push_key") }
  /// Encryption or signing failed in the layer below (a key the curve refuses).
  public static var encryptionFailed: Self { Self("encryption_failed") }
  /// A muted sender given to the planner that is not 64 hex characters (field
  /// `muted_senders[i]`).
  public static var invalidMutedSender: Self { Self("invalid_muted_sender") }
  /// A muted thread given to the planner that is not a 64-hex event id (field `muted_threads[i]`).
  public static var invalidMutedThread: Self { Self("invalid_muted_thread") }
  /// The plan asks for a kind the descriptor's `push_kinds` does not list (field `kinds`, the
  /// message names the kind).
  public static var kindNotOffered: Self { Self("kind_not_offered") }
  /// The hellthread gate (`p_tags_max`) asked of the planner is not positive (field `p_tags_max`).
  public static var invalidPTagsMax: Self { Self("invalid_p_tags_max") }
}
