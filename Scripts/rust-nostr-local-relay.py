#!/usr/bin/env python3
"""rust-nostr's local relay (PyPI nostr-sdk, LocalRelayBuilder), for the PushRelayServer tests.

Usage: rust-nostr-local-relay.py PORT [--auth]
With --auth the relay requires NIP-42 for reads and writes. Prints the relay's ws:// URL on its first line once it accepts connections and serves until it
is terminated. The relay keeps its events in memory. Installed by Scripts/setup into the relays
venv ($NOSTRPUSH_RELAYS_VENV, default ~/.cache/nostrpush/relays-venv).
"""
import asyncio
import sys

from nostr_sdk import LocalRelayBuilder, LocalRelayBuilderNip42, LocalRelayBuilderNip42Mode


async def main() -> None:
    builder = LocalRelayBuilder().port(int(sys.argv[1]))
    if "--auth" in sys.argv[2:]:
        builder = builder.nip42(LocalRelayBuilderNip42(mode=LocalRelayBuilderNip42Mode.BOTH))
    relay = builder.build()
    await relay.run()
    print(await relay.url(), flush=True)
    await asyncio.Event().wait()


asyncio.run(main())
