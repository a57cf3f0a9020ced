// Tests for NostrEvent arrive with the issue that builds it.
