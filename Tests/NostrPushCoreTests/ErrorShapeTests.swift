import EnrichmentCache
import NIP44
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import Testing

/// The package's one error type, seen through a few modules: codes switch like enum cases, print
/// as the CLI prints them, and equality ignores the wording.
@Suite struct ErrorShapeTests {
  static func name(of code: NIP44Error.Code) -> String {
    switch code {
    case .invalidMAC: "mac"
    case .invalidPadding: "padding"
    default: "other"
    }
  }

  @Test func switchesOverCodesLikeEnumCases() {
    #expect(Self.name(of: .invalidMAC) == "mac")
    #expect(Self.name(of: .invalidPadding) == "padding")
    #expect(Self.name(of: .invalidBase64) == "other")
  }

  @Test func printsSnakeCaseCodesAndOneRenderingInEveryDomain() {
    #expect(CacheError.Code.newerSchema.rawValue == "newer_schema")
    #expect(CacheError.Code.accountRemoved.rawValue == "account_removed")
    #expect(NIP44Error(code: .invalidMAC, message: "wrong key").description == "invalid_mac: wrong key")
    #expect(
      EventError(code: .invalidField, field: "kind", message: "not an integer").description
        == "invalid_field (kind): not an integer")
    #expect(HTTPTransportError(code: .timeout, message: "no answer").description == "timeout: no answer")
    #expect(
      CacheError(code: .invalidField, field: "account", message: "must be hex").description
        == "invalid_field (account): must be hex")
    #expect(
      JSONError(code: .syntax, field: "a", offset: 3, message: "expected a value").description
        == "syntax (a): expected a value")
  }

  @Test func comparesCodeAndFieldButNeitherMessageNorDetail() {
    #expect(
      HTTPTransportError(code: .tooLarge, message: "one", detail: 200)
        == HTTPTransportError(code: .tooLarge, message: "two", detail: 413))
    #expect(HTTPTransportError(code: .tooLarge, message: "", detail: 413).status == 413)
    #expect(
      EventError(code: .invalidField, field: "kind", message: "x")
        != EventError(code: .invalidField, field: "id", message: "x"))
    #expect(
      Set([NIP44Error(code: .invalidMAC, message: "a"), NIP44Error(code: .invalidMAC, message: "b")]).count
        == 1)
  }
}
