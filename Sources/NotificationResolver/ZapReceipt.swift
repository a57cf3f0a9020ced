import Bech32
import NostrEvent
import NostrPushCore

/// A NIP-57 zap receipt (kind 9735) judged for one account by NIP-57 Appendix F: only a receipt
/// that passes every check carries an amount, so an amount is never shown that the account's own
/// zapper did not vouch for.
///
/// The checks, in order (the first that fails is ``failure``):
/// 1. the `bolt11` tag is a BOLT-11 invoice (``Bolt11Invoice``) with an amount;
/// 2. the `description` tag is a kind 9734 zap request whose id and signature verify, and whose
///    `p` is the account;
/// 3. the request's `amount` tag, when present, equals the invoice's millisatoshis;
/// 4. SHA-256 of the exact `description` string equals the invoice's description hash (`h`);
/// 5. the receipt's `e` tag, when present, equals the request's;
/// 6. the receipt is signed by one of the account's zapper keys (the LNURL `nostrPubkey` of the
///    account's lightning address, which the app resolves and stores). With none configured no
///    receipt is validated.
///
/// Decision: a receipt is always presentable — a failed check costs the amount, not the
/// notification. The sender is the request's author only when the request verified (else nil:
/// the caller names no one), and `Anonymous` is the caller's word for an `anon` request.
public struct ZapReceipt: Sendable, Equatable {
  /// Why a receipt is not validated: the first check of the list above that failed.
  public enum Failure: String, Sendable, CaseIterable {
    /// No `bolt11` tag, or one that is not a BOLT-11 invoice.
    case invalidInvoice = "invalid_invoice"
    /// The invoice names no amount.
    case noAmount = "no_amount"
    /// No `description` tag, or one that is not a verified kind 9734 zap request.
    case invalidRequest = "invalid_request"
    /// The request's `p` is not the account.
    case requestNotForAccount = "request_not_for_account"
    /// The request's `amount` differs from the invoice's.
    case amountMismatch = "amount_mismatch"
    /// The invoice's description hash is missing or is not SHA-256 of the description.
    case descriptionHashMismatch = "description_hash_mismatch"
    /// The receipt's `e` differs from the request's.
    case eventMismatch = "event_mismatch"
    /// The receipt's signer is not one of the account's zapper keys (or none is configured).
    case signerNotZapper = "signer_not_zapper"
  }

  /// The kind of a zap request (NIP-57).
  static let requestKind = EventKind.zapRequest

  /// The receipt's event id.
  public let receiptID: String
  /// The zap request's author, when the request verified; nil otherwise.
  public let sender: String?
  /// Whether the request asks to stay anonymous (an `anon` tag): show no name.
  public let isAnonymous: Bool
  /// The zap comment (the verified request's content), empty when none.
  public let comment: String
  /// The zapped event's id (the receipt's `e`), nil for a zap of the profile.
  public let targetEventID: String?
  /// The amount in millisatoshis, present only when every check passed.
  public let amountMillisatoshis: UInt64?
  /// The first check that failed, nil when the receipt is validated.
  public let failure: Failure?

  /// Whether every check passed.
  public var isValidated: Bool { failure == nil }

  /// Judges `receipt` (already verified by the caller) for `account`, trusting `zapperPubkeys`
  /// (64 lowercase hex each) as the account's zapper keys.
  public init(receipt: Event, account: String, zapperPubkeys: Set<String>) {
    receiptID = receipt.id
    targetEventID = receipt.tagValues("e").first
    let request = Self.request(in: receipt)
    sender = request?.pubkey
    isAnonymous = request?.tags.contains { $0.first == "anon" } ?? false
    comment = request?.content ?? ""
    switch Self.check(receipt, request: request, account: account, zapperPubkeys: zapperPubkeys) {
    case .success(let amount):
      amountMillisatoshis = amount
      failure = nil
    case .failure(let failed):
      amountMillisatoshis = nil
      failure = failed.reason
    }
  }

  /// A failed check, as an `Error` so the checks read as one `Result`.
  private struct Failed: Error {
    let reason: Failure
  }

  /// The receipt's zap request, parsed from its `description` and verified; nil otherwise.
  private static func request(in receipt: Event) -> Event? {
    guard let description = receipt.tagValues("description").first,
      let request = try? Event(json: Array(description.utf8)), request.kind == requestKind,
      request.verify().isValid
    else { return nil }
    return request
  }

  /// The validated amount, or the first check that failed.
  private static func check(
    _ receipt: Event, request: Event?, account: String, zapperPubkeys: Set<String>
  ) -> Result<UInt64, Failed> {
    guard let bolt11 = receipt.tagValues("bolt11").first, let invoice = try? Bolt11Invoice(decoding: bolt11)
    else { return .failure(Failed(reason: .invalidInvoice)) }
    guard let amount = invoice.amountMillisatoshis else { return .failure(Failed(reason: .noAmount)) }
    guard let request, let description = receipt.tagValues("description").first else {
      return .failure(Failed(reason: .invalidRequest))
    }
    guard request.tagValues("p") == [account] else { return .failure(Failed(reason: .requestNotForAccount)) }
    if let stated = request.tagValues("amount").first, UInt64(stated) != amount {
      return .failure(Failed(reason: .amountMismatch))
    }
    guard invoice.descriptionHash == NostrSHA256.hash(Array(description.utf8)) else {
      return .failure(Failed(reason: .descriptionHashMismatch))
    }
    if let target = receipt.tagValues("e").first, request.tagValues("e").first != target {
      return .failure(Failed(reason: .eventMismatch))
    }
    guard zapperPubkeys.contains(receipt.pubkey) else { return .failure(Failed(reason: .signerNotZapper)) }
    return .success(amount)
  }
}
