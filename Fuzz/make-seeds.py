#!/usr/bin/env python3
"""Writes the seed corpora under Fuzz/Corpus/<harness>/ from Fixtures/vectors and the other Fixtures/.

Run from anywhere: `python3 Fuzz/make-seeds.py`. It replaces Fuzz/Corpus/ as a whole; the output
is deterministic (sorted inputs, no randomness), so running it again only changes files when the
vectors or fixtures changed. Each seed stays under its harness's -max_len; each harness gets a
few dozen seeds.
"""

import hashlib
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VECTORS = os.path.join(ROOT, "Fixtures", "vectors")
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
MAX_LEN = {"json": 4096, "event": 4096, "filter": 4096, "nip19": 2048, "descriptor": 8192, "preview": 4096, "nip44": 4096}


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def write(harness, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_LEN[harness]:
        return False
    folder = os.path.join(CORPUS, harness)
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256(data).hexdigest()[:8]
    with open(os.path.join(folder, f"{name}-{digest}"), "wb") as out:
        out.write(data)
    return True


def load(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as handle:
        return json.load(handle)


def spread(items, count):
    """`count` items spread evenly over `items` (all of them when there are fewer)."""
    if len(items) <= count:
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def events():
    real = [entry["event"] for entry in load("nip01-events.json")["events"]]
    generated = [entry["event"] for entry in load("nip01-generated.json")["vectors"]]
    with open(os.path.join(ROOT, "Fixtures", "events", "sample.jsonl"), encoding="utf-8") as handle:
        sample = [json.loads(line) for line in handle if line.strip()]
    return real, generated, sample


def event_seeds(real, generated, sample):
    small_real = sorted(real, key=lambda e: len(compact(e)))
    chosen = spread(small_real[:80], 20) + [e for e in generated if len(compact(e)) < 3000][:16] + sample
    for index, event in enumerate(chosen):
        write("event", f"event-{index:02d}", compact(event))
    # The same event written with whitespace, reordered members and escaped slashes.
    event = sample[0]
    write("event", "spaced", json.dumps(event, indent=1).encode())
    write("event", "reordered", compact(dict(reversed(list(event.items())))))
    write("event", "escaped", json.dumps(event, ensure_ascii=True).replace("/", "\\/").encode())


def json_seeds(real, generated):
    for index, event in enumerate(spread(sorted(real, key=lambda e: len(compact(e))), 10)):
        write("json", f"event-{index:02d}", compact(event))
    for index, event in enumerate(generated[:6]):
        write("json", f"generated-{index:02d}", compact(event))
    nip11 = sorted(f for f in os.listdir(os.path.join(VECTORS, "nip11")) if f != "index.json")
    for name in spread(nip11, 10):
        with open(os.path.join(VECTORS, "nip11", name), "rb") as handle:
            write("json", "nip11-" + name.rsplit(".", 1)[0][:40], handle.read())
    edge = [
        "null", "true", "false", "0", "-0", "-0.0", "1e308", "-1.5E-300", "9223372036854775807",
        "-9223372036854775808", "9223372036854775808", "123456789012345678901234567890", "0.1",
        '""', '"\\u0000\\u001f\\ud83e\\udda9\\u00e9/\\/\\b\\f\\n\\r\\t\\"\\\\"', '"日本語 🦩 é"',
        "[]", "{}", ' [ 1 , "a" , null , { "k" : [ true ] } ] ', '{"a":1,"b":{"c":[1,2,{"d":null}]}}',
        '["EVENT","sub",{"kind":1}]', "[" * 64 + "]" * 64, '{"a":' * 20 + "1" + "}" * 20,
        '{"' + '","'.join(f"k{i}\":{i}" for i in range(20)).rstrip('"') + "}",
    ]
    for index, text in enumerate(edge):
        write("json", f"edge-{index:02d}", text)


def filter_seeds(real):
    base = [
        {}, {"kinds": [1]}, {"limit": 0}, {"since": 0, "until": 9007199254740991},
        {"ids": ["a" * 64], "authors": ["b" * 64, "2" * 64]}, {"#e": ["c" * 64], "#t": ["nostr", ""]},
        {"#h": ["x"], "kinds": [9, 40002, 45001, 45003], "limit": 2147483647},
        {"kinds": [0, 65535], "search": "ignored", "extra": {"x": [1]}},
        [{"kinds": [1]}, {"#p": ["b" * 64]}, {"authors": ["2" * 64], "since": 1}],
    ]
    for index, value in enumerate(base):
        write("filter", f"filter-{index:02d}", compact(value))
    for index, event in enumerate(spread(real, 16)):
        value = {"ids": [event["id"]], "authors": [event["pubkey"]], "kinds": [event["kind"]],
                 "since": event["created_at"], "until": event["created_at"], "limit": 1}
        for tag in event.get("tags", [])[:3]:
            if len(tag) >= 2 and len(tag[0]) == 1 and tag[0].isalpha():
                value.setdefault("#" + tag[0], []).append(tag[1])
        write("filter", f"from-event-{index:02d}", compact(value))


NIP19_PREFIXES = ["npub", "nsec", "note", "nprofile", "nevent", "naddr", "nrelay", "lnbc"]


def nip19_seeds():
    """Text mode: an even first byte, then the string. Payload mode: an odd byte picking the prefix."""
    vectors = load("nip19-vectors.json")["vectors"]
    for index, vector in enumerate(spread(vectors, 24)):
        write("nip19", f"text-{index:02d}", b"\x00" + vector["bech32"].encode())
    payloads = []
    for vector in vectors:
        if not vector.get("valid") or vector["kind"] not in NIP19_PREFIXES:
            continue
        mode = 1 | (NIP19_PREFIXES.index(vector["kind"]) << 1)
        if vector.get("tlv"):
            payload = b"".join(
                bytes([record["type"], record["length"]]) + bytes.fromhex(record["value_hex"])
                for record in vector["tlv"])
        elif vector.get("hex"):
            payload = bytes.fromhex(vector["hex"])
        else:
            continue
        payloads.append(bytes([mode]) + payload)
    for index, payload in enumerate(spread(payloads, 20)):
        write("nip19", f"payload-{index:02d}", payload)
    for name in ("bech32-valid.json", "bech32-invalid.json", "bech32m-valid.json"):
        for index, entry in enumerate(load(name)[:4]):
            write("nip19", f"{name.split('.')[0]}-{index:02d}", b"\x02" + entry["string"].encode())


def preview_seeds(real, generated):
    texts = [e["content"] for e in real if 0 < len(e["content"].encode()) < 1500]
    texts = spread(texts, 16) + [e["content"] for e in generated if len(e["content"].encode()) < 1500][:14]
    texts += [
        "see ```\nlet x = 1\n``` and `inline` code",
        "[label](https://example.com) ![img](https://x/y.png) bare https://example.com/a?b=c http://x",
        "hi nostr:npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6 and "
        "nostr:nprofile1qqsrhuxx8l9ex335q7he0f09aej04zpazpl0ne2cgukyawd24mayt8gpp4mhxue69uhhytnc9e3k7mgpz4mhxue69uhkg6nzv9ejuumpv34kytnrdaksjlyr9p",
        "\u202ebidi\u202c \u2066iso\u2069 \u0000\u0007 ctrl\t\n\r  spaces   ",
        "👩‍💻" * 200, "e\u0301" * 200, "a" * 179, "a" * 180, "a" * 181, " " * 50 + "x" + " " * 50,
    ]
    # The first byte picks the harness's mention renderer.
    for index, text in enumerate(texts):
        write("preview", f"content-{index:02d}", bytes([index % 5]) + text.encode())


def descriptor_seeds():
    folder = os.path.join(VECTORS, "nip11")
    for name in spread(sorted(f for f in os.listdir(folder) if f != "index.json"), 30):
        with open(os.path.join(folder, name), "rb") as handle:
            write("descriptor", "nip11-" + name.rsplit(".", 1)[0][:48], handle.read())
    fixtures = os.path.join(ROOT, "Fixtures")
    for directory, _, files in sorted(os.walk(fixtures)):
        for name in sorted(files):
            if name.endswith(".json") and ("nip11" in directory or "descriptor" in name or "nip11" in name):
                with open(os.path.join(directory, name), "rb") as handle:
                    write("descriptor", "fixture-" + name.rsplit(".", 1)[0][:48], handle.read())


def nip44_seeds():
    """Mode 0: key + payload (valid and invalid vectors); 1: two secrets + an x (+ a payload);
    2: key + nonce + position + byte + plaintext (see Fuzz/NIP44Fuzz.swift)."""
    v2 = load("nip44/nip44.vectors.json")["v2"]
    for i, case in enumerate(v2["valid"]["encrypt_decrypt"]):
        key = bytes.fromhex(case["conversation_key"])
        write("nip44", f"valid-{i}", bytes([0]) + key + case["payload"].encode())
        pub = bytes.fromhex(v2["valid"]["get_conversation_key"][i]["pub2"])
        write("nip44", f"keys-{i}", bytes([1]) + bytes.fromhex(case["sec1"]) + bytes.fromhex(case["sec2"]) + pub)
        plaintext = case["plaintext"].encode()
        write("nip44", f"encrypt-{i}", bytes([2]) + key + bytes.fromhex(case["nonce"]) + bytes([0, i * 7, 65]) + plaintext)
    for i, case in enumerate(v2["invalid"]["decrypt"]):
        write("nip44", f"invalid-{i}", bytes([0]) + bytes.fromhex(case["conversation_key"]) + case["payload"].encode())
    for i, case in enumerate(v2["invalid"]["get_conversation_key"]):
        write("nip44", f"badkey-{i}", bytes([1]) + bytes.fromhex(case["sec1"]) + bytes(32) + bytes.fromhex(case["pub2"]))


def main():
    if not os.path.isdir(VECTORS):
        sys.exit("make-seeds: Fixtures/vectors not found")
    shutil.rmtree(CORPUS, ignore_errors=True)
    real, generated, sample = events()
    json_seeds(real, generated)
    event_seeds(real, generated, sample)
    filter_seeds(real)
    nip19_seeds()
    preview_seeds(real, generated)
    descriptor_seeds()
    nip44_seeds()
    for harness in sorted(os.listdir(CORPUS)):
        print(f"{harness}: {len(os.listdir(os.path.join(CORPUS, harness)))} seeds")


if __name__ == "__main__":
    main()
