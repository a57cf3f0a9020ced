import Bech32
import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTesting
import NotificationResolver
import Testing

/// `ZapReceipt`: NIP-57 Appendix F's checks, each broken link on its own, with receipts, requests
/// and invoices made here and signed by real keys.
@Suite struct ZapReceiptTests {
  /// A zap world: the account, the sender, the account's zapper (its LNURL server's key), a note.
  struct World {
    let account = SecretKey.generate()
    let sender = SecretKey.generate()
    let zapper = SecretKey.generate()
    let note = String(repeating: "ab", count: 32)
    let now: Int64 = 1_767_225_600

    /// A zap request for `msats` to the account, about the note.
    func request(
      by key: SecretKey? = nil, to recipient: String? = nil, amount: String? = "21000",
      extraTags: [[String]] = []
    ) throws -> Event {
      var tags = [
        ["p", recipient ?? account.publicKeyHex], ["e", note], ["relays", "wss://relay.example"],
      ]
      if let amount { tags.append(["amount", amount]) }
      return try UnsignedEvent(
        pubkey: (key ?? sender).publicKeyHex, createdAt: now - 5, kind: 9734, tags: tags + extraTags,
        content: "great post ⚡"
      ).signed(with: key ?? sender)
    }

    /// A BOLT-11 invoice for `amount` (its human-readable amount, e.g. `210n`) whose `h` is
    /// SHA-256 of `described`; signature words are zero (not checked).
    func invoice(amount: String, describing described: String) throws -> String {
      try ZapFixture.invoice(amount: amount, describing: described, timestamp: now)
    }

    /// A receipt by `signer` carrying `request` as its description and `bolt11`.
    func receipt(
      request: Event, description: String? = nil, bolt11: String? = nil, signer: SecretKey? = nil,
      target: String? = nil
    ) throws -> Event {
      let described = description ?? String(decoding: request.jsonBytes(), as: UTF8.self)
      let invoice = try bolt11 ?? self.invoice(amount: "210n", describing: described)
      return try UnsignedEvent(
        pubkey: (signer ?? zapper).publicKeyHex, createdAt: now, kind: 9735,
        tags: [
          ["p", account.publicKeyHex], ["e", target ?? note], ["bolt11", invoice],
          ["description", described],
        ],
        content: ""
      ).signed(with: signer ?? zapper)
    }

    func judge(_ receipt: Event, zappers: Set<String>? = nil) -> ZapReceipt {
      ZapReceipt(
        receipt: receipt, account: account.publicKeyHex, zapperPubkeys: zappers ?? [zapper.publicKeyHex])
    }
  }

  @Test func aReceiptPassingEveryCheckCarriesItsAmount() throws {
    let world = World()
    let zap = world.judge(try world.receipt(request: try world.request()))
    #expect(zap.isValidated)
    #expect(zap.failure == nil)
    #expect(zap.amountMillisatoshis == 21_000)
    #expect(zap.sender == world.sender.publicKeyHex)
    #expect(zap.comment == "great post ⚡")
    #expect(zap.targetEventID == world.note)
    #expect(!zap.isAnonymous)
  }

  @Test func eachBrokenLinkShowsNoAmount() throws {
    let world = World()
    let request = try world.request()
    let described = String(decoding: request.jsonBytes(), as: UTF8.self)
    // A request whose signature no longer matches its content.
    let forged = described.replacingOccurrences(of: "great post", with: "grEat post")
    let cases: [(ZapReceipt.Failure, Event, Set<String>?)] = [
      (.invalidInvoice, try world.receipt(request: request, bolt11: "lnbc1notaninvoice"), nil),
      (
        .noAmount,
        try world.receipt(request: request, bolt11: try world.invoice(amount: "", describing: described)), nil
      ),
      (.invalidRequest, try world.receipt(request: request, description: forged), nil),
      (.invalidRequest, try world.receipt(request: request, description: "{\"kind\":9734}"), nil),
      (
        .requestNotForAccount, try world.receipt(request: try world.request(to: world.zapper.publicKeyHex)),
        nil
      ),
      (.amountMismatch, try world.receipt(request: try world.request(amount: "1000000")), nil),
      (
        .descriptionHashMismatch,
        try world.receipt(
          request: request, bolt11: try world.invoice(amount: "210n", describing: described + " ")),
        nil
      ),
      (.eventMismatch, try world.receipt(request: request, target: String(repeating: "cd", count: 32)), nil),
      (.signerNotZapper, try world.receipt(request: request, signer: SecretKey.generate()), nil),
      (.signerNotZapper, try world.receipt(request: request), []),
    ]
    for (reason, receipt, zappers) in cases {
      let zap = world.judge(receipt, zappers: zappers)
      #expect(zap.failure == reason, "\(reason)")
      #expect(zap.amountMillisatoshis == nil, "\(reason)")
      #expect(!zap.isValidated, "\(reason)")
    }
  }

  @Test func aRequestWithoutAnAmountTagIsCheckedByTheHashAlone() throws {
    let world = World()
    let zap = world.judge(try world.receipt(request: try world.request(amount: nil)))
    #expect(zap.amountMillisatoshis == 21_000)
  }

  @Test func anAnonymousZapIsValidatedButNamesNoOne() throws {
    let world = World()
    let throwaway = SecretKey.generate()
    let zap = world.judge(try world.receipt(request: try world.request(by: throwaway, extraTags: [["anon"]])))
    #expect(zap.isValidated)
    #expect(zap.isAnonymous)
    #expect(zap.sender == throwaway.publicKeyHex)
  }

  @Test func aBrokenRequestNamesNoSender() throws {
    let world = World()
    let zap = world.judge(try world.receipt(request: try world.request(), description: "not json"))
    #expect(zap.sender == nil)
    #expect(zap.comment == "")
    #expect(zap.failure == .invalidRequest)
  }
}
