#!/usr/bin/env python3
"""Writes Fixtures/giftwrap/wraps.json: NIP-17 gift wraps made by a second implementation
(rust-nostr through its Python bindings, `pip install nostr-sdk==0.45.1`), so that
GiftWrapTests open wraps our code did not build. Every key below is a TEST KEY, public,
never to hold anything. Run it from the repository root; the output is committed and the
tests never run Python. Wraps are random (fresh one-time keys, nonces, backdated times), so a
re-run writes different wraps with the same rumors and ids."""

import json
import nostr_sdk as n

# TEST KEYS (public; never use them for anything real).
SENDER = "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a"
RECIPIENT = "c15d739894c81a2fcfd3a2df85a0d2c0dbc47a280d092799f144d73d7ae78add"
OTHER = "9c42fa4cfa8f0a59c8f0dba2d1d9bb4b1b66f4e0d2b0a2c5b6f5b64e8c1e3a21"
OUTSIDER = "3b2f4a1e5d6c7b8a99887766554433221100ffeeddccbbaa0123456789abcdef"

RUMOR_TIME = 1767225600  # 2026-01-01T00:00:00Z


def keys(hex_secret):
    return n.Keys.parse(hex_secret)


def rumor(kind, content, tags, author):
    builder = n.EventBuilder(n.Kind(kind), content).tags([n.Tag.parse(t) for t in tags])
    builder = builder.custom_created_at(n.Timestamp.from_secs(RUMOR_TIME))
    return builder.finalize_unsigned(keys(author).public_key()).ensure_id()


def wrap(unsigned, to):
    event = n.nip59_make_gift_wrap(keys(SENDER), keys(to).public_key(), unsigned)
    return json.loads(event.as_json())


def main():
    sender_pub = keys(SENDER).public_key().to_hex()
    recipient_pub = keys(RECIPIENT).public_key().to_hex()
    other_pub = keys(OTHER).public_key().to_hex()
    chat = rumor(14, "Lunch at noon? \U0001F35C", [["p", recipient_pub]], SENDER)
    group = rumor(
        14, "Who brings the tent?", [["p", recipient_pub], ["p", other_pub], ["subject", "Trip planning"]], SENDER)
    file = rumor(
        15, "https://files.example/a3f1.jpg.enc",
        [["p", recipient_pub], ["file-type", "image/jpeg"], ["encryption-algorithm", "aes-gcm"],
         ["decryption-key", "00112233445566778899aabbccddeeff"], ["decryption-nonce", "0011223344556677"],
         ["x", "a3f1" * 16]],
        SENDER)

    def case(name, unsigned, to, note):
        parsed = json.loads(unsigned.as_json())
        return {
            "name": name, "note": note, "wrap": wrap(unsigned, to),
            "expected": {
                "rumor_id": parsed["id"], "author": parsed["pubkey"], "created_at": parsed["created_at"],
                "kind": parsed["kind"], "content": parsed["content"], "tags": parsed["tags"],
            },
        }

    doc = {
        "generator": "Fixtures/giftwrap/make-wraps.py with nostr-sdk (rust-nostr Python bindings) 0.45.1",
        "test_keys": {
            "sender_secret_key": SENDER, "sender_pubkey": sender_pub,
            "recipient_secret_key": RECIPIENT, "recipient_pubkey": recipient_pub,
            "other_secret_key": OTHER, "other_pubkey": other_pub,
            "outsider_secret_key": OUTSIDER,
        },
        "cases": [
            case("chat", chat, RECIPIENT, "a one-to-one kind 14 text"),
            case("chat_again", chat, RECIPIENT, "a second wrap of the same rumor: the same rumor id"),
            case("group_with_subject", group, RECIPIENT, "kind 14 to two recipients with a subject"),
            case("group_for_other", group, OTHER, "the group rumor wrapped for the other recipient"),
            case("file", file, RECIPIENT, "a kind 15 file message"),
            case("for_outsider", chat, OUTSIDER, "wrapped for another key: the recipient cannot open it"),
        ],
    }
    with open("Fixtures/giftwrap/wraps.json", "w") as out:
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


main()
