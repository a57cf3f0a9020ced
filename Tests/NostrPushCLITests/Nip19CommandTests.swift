import Dispatch
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct Nip19CommandTests {
  static let pubkey = "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d"

  @Test(arguments: [
    ("npub", pubkey, "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6"),
    ("nsec", pubkey.uppercased(), "nsec180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsgyumg0"),
    (
      "note", "8543e7d0bafb28f33c495f2198454bd62c7369c86d72d77704cad2674e0a92c9",
      "note1s4p70596lv50x0zftuses32t6ck8x6wgd4edwacyetfxwns2jtysux7vep"
    ),
  ])
  func encodesBareEntities(_ type: String, _ hex: String, _ expected: String) async throws {
    let result = try await NostrPushBinary.run(["nip19", "encode", type, hex])
    #expect(result.status == 0)
    #expect(result.stdout == expected + "\n")
  }

  @Test func encodesAnNprofile() async throws {
    let result = try await NostrPushBinary.run([
      "nip19", "encode", "nprofile", "--pubkey", Self.pubkey, "--relay", "wss://r.x.com", "--relay",
      "wss://djbas.sadkb.com",
    ])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        nprofile1qqsrhuxx8l9ex335q7he0f09aej04zpazpl0ne2cgukyawd24mayt8gpp4mhxue69uhhytnc9e3k7mgpz4mhxue69\
        uhkg6nzv9ejuumpv34kytnrdaksjlyr9p

        """)
  }

  @Test func encodesAnNevent() async throws {
    let result = try await NostrPushBinary.run([
      "nip19", "encode", "nevent", "--id", "b9f5441e45ca39179320e0031cfb18e34078673dcc3d3e3a3b3a981760aa5696",
      "--relay", "wss://nostr-relay.untethr.me", "--relay", "wss://nostr-pub.wellorder.net", "--author",
      Self.pubkey, "--kind", "1",
    ])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        nevent1qqstna2yrezu5wghjvswqqculvvwxsrcvu7uc0f78gan4xqhvz49d9spr3mhxue69uhkummnw3ez6un9d3shjtn4de6x2\
        argwghx6egpr4mhxue69uhkummnw3ez6ur4vgh8wetvd3hhyer9wghxuet5qgsrhuxx8l9ex335q7he0f09aej04zpazpl0ne2c\
        gukyawd24mayt8grqsqqqqqpw4032x

        """)
  }

  @Test func encodesAnNaddr() async throws {
    let result = try await NostrPushBinary.run([
      "nip19", "encode", "naddr", "--identifier", "banana", "--pubkey", Self.pubkey, "--kind", "30023",
      "--relay", "wss://relay.nostr.example.mydomain.example.com", "--relay", "wss://nostr.banana.com",
    ])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        naddr1qqrxyctwv9hxzqfwwaehxw309aex2mrp0yhxummnw3ezuetcv9khqmr99ekhjer0d4skjm3wv4uxzmtsd3jjucm0d5q3v\
        amnwvaz7tmwdaehgu3wvfskuctwvyhxxmmdqgsrhuxx8l9ex335q7he0f09aej04zpazpl0ne2cgukyawd24mayt8grqsqqqa2\
        8a3lkds

        """)
  }

  @Test func refusesBadHexWithExitStatus1() async throws {
    let result = try await NostrPushBinary.run(["nip19", "encode", "npub", "+a" + Self.pubkey.dropFirst(2)])
    #expect(result.status == 1)
    #expect(result.stdout == "")
    #expect(
      result.stderr == "nostr-push nip19: invalid_character (pubkey): pubkey has a non-hex character at 0\n")
  }

  @Test(arguments: [
    ["nip19"], ["nip19", "frobnicate"], ["nip19", "encode", "npub"], ["nip19", "encode", "nevent"],
    ["nip19", "encode", "naddr", "--identifier", "x", "--pubkey", pubkey],
    ["nip19", "encode", "nevent", "--id", pubkey, "--kind", "one"],
    ["nip19", "encode", "nprofile", "--pubkey", pubkey, "--kind", "1"], ["nip19", "compact"],
    ["nip19", "decode", "a", "b"],
  ])
  func reportsUsageErrorsWithExitStatus2(_ arguments: [String]) async throws {
    let result = try await NostrPushBinary.run(arguments)
    #expect(result.status == 2)
    #expect(result.stdout == "")
    #expect(result.stderr.contains("usage: nostr-push nip19"))
  }

  @Test func decodesAStringArgument() async throws {
    let result = try await NostrPushBinary.run([
      "nip19", "decode",
      "nevent1qqstna2yrezu5wghjvswqqculvvwxsrcvu7uc0f78gan4xqhvz49d9spr3mhxue69uhkummnw3ez6un9d3shjtn4de6x2"
        + "argwghx6egpr4mhxue69uhkummnw3ez6ur4vgh8wetvd3hhyer9wghxuet5nxnepm",
    ])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        {"type":"nevent","id":"b9f5441e45ca39179320e0031cfb18e34078673dcc3d3e3a3b3a981760aa5696",\
        "relays":["wss://nostr-relay.untethr.me","wss://nostr-pub.wellorder.net"],"author":null,"kind":null}

        """)
  }

  @Test func decodesStandardInputAsOneDocument() async throws {
    let input = Data("  note1s4p70596lv50x0zftuses32t6ck8x6wgd4edwacyetfxwns2jtysux7vep\n".utf8)
    for arguments in [["nip19", "decode"], ["nip19", "decode", "-"]] {
      let result = try await NostrPushBinary.run(arguments, input: input)
      #expect(result.status == 0)
      #expect(
        result.stdout
          == #"{"type":"note","id":"8543e7d0bafb28f33c495f2198454bd62c7369c86d72d77704cad2674e0a92c9"}"#
          + "\n")
    }
  }

  @Test func decodesJSONLinesWithAnErrorLine() async throws {
    let input = """
      nostr:npub14f8usejl26twx0dhuxjh9cas7keav9vr0v8nvtwtrjqx3vycc76qqh9nsy

      nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5\r
      npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w4
      naddr1qq98yetxv4ex2mnrv4esygrl54h466tz4v0re4pyuavvxqptsejl0vxcmnhfl60z3rth2xkpjspsgqqqw4rsf34vl5
      nrelay1qqt8wumn8ghj7un9d3shjtnwdaehgu3wvfskueq4r295t
      """
    let result = try await NostrPushBinary.run(["nip19", "decode", "--jsonl"], input: Array(input.utf8))
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        {"type":"npub","pubkey":"aa4fc8665f5696e33db7e1a572e3b0f5b3d615837b0f362dcb1c8068b098c7b4"}
        {"type":"nsec","secret_key":"67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa"}
        {"error":"invalid_checksum","message":"the checksum fails; bech32 (BIP-173) is required"}
        {"type":"naddr","identifier":"references","pubkey":"7fa56f5d6962ab1e3cd424e758c3002b8665f7b0d8dcee9fe9e288d7751ac194","kind":30023,"relays":[]}
        {"error":"unknown_prefix","message":"'nrelay' is not npub, nsec, note, nprofile, nevent or naddr"}

        """)
  }

  @Test func exitsWith0WhenEveryLineDecodes() async throws {
    let input = "npub14f8usejl26twx0dhuxjh9cas7keav9vr0v8nvtwtrjqx3vycc76qqh9nsy\n\n"
    let result = try await NostrPushBinary.run(["nip19", "decode", "--jsonl", "-"], input: Array(input.utf8))
    #expect(result.status == 0)
    #expect(
      result.stdout
        == #"{"type":"npub","pubkey":"aa4fc8665f5696e33db7e1a572e3b0f5b3d615837b0f362dcb1c8068b098c7b4"}"#
        + "\n")
  }

  @Test func answersALineOver16MiBAndGoesOn() async throws {
    var input = Data(repeating: UInt8(ascii: "q"), count: 16 * 1024 * 1024 + 1)
    input.append(
      contentsOf: Array("\nnote1s4p70596lv50x0zftuses32t6ck8x6wgd4edwacyetfxwns2jtysux7vep\n".utf8))
    let result = try await NostrPushBinary.run(["nip19", "decode", "--jsonl"], input: input)
    #expect(result.status == 1)
    #expect(
      result.stdout == """
        {"error":"invalid_length","message":"the input is over 16777216 bytes and was skipped"}
        {"type":"note","id":"8543e7d0bafb28f33c495f2198454bd62c7369c86d72d77704cad2674e0a92c9"}

        """)
  }

  @Test(arguments: [
    ("aa4fc8665f5696e33db7e1a572e3b0f5b3d615837b0f362dcb1c8068b098c7b4", "npub14f8\u{2026}9nsy"),
    ("AA4FC8665F5696E33DB7E1A572E3B0F5B3D615837B0F362DCB1C8068B098C7B4", "npub14f8\u{2026}9nsy"),
    ("npub14f8usejl26twx0dhuxjh9cas7keav9vr0v8nvtwtrjqx3vycc76qqh9nsy", "npub14f8\u{2026}9nsy"),
    ("+a4fc8665f5696e33db7e1a572e3b0f5b3d615837b0f362dcb1c8068b098c7b4", "Someone"),
    ("aa4fc8665f5696e33db7e1a572e3b0f5b3d615837b0f362dcb1c8068b098c7b", "Someone"),
    ("-", "Someone"),
  ])
  func compactsKeysAndFallsBackToSomeone(_ key: String, _ expected: String) async throws {
    let result = try await NostrPushBinary.run(["nip19", "compact", key])
    #expect(result.status == 0)
    #expect(result.stdout == expected + "\n")
  }
}
