// Tests for Bech32 arrive with the issue that builds it.
