// The Bech32 module. Its types arrive with the issue that builds it.
